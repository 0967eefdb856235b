/** The embedder module: `createEmbedder`, model lookup, vector helpers and text analysis. */
export { createEmbedder } from './embedder.js';
export { locateModel, type LocatedModel } from './locate.js';
export type { Embedder, EmbedderOptions, EmbedderStatus, EmbedderState, EmbedPriority } from './contracts.js';
export { embedderStatusFor, publicDenseReason } from './status-view.js';
export { dot, normalize, toBlob, fromBlob, signBits } from './vector.js';
export { analyze, queryTerms, ftsOrQuery, words, STOPWORDS } from './text/analyzer.js';
export { fuse, normalisedScore, RRF_K, type Ranked } from './fusion.js';
