/** Text analysis: Porter stems (published examples), stopwords, numbers, FTS5 quoting. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { porterStem } from '../../../services/embedder/src/text/porter.js';
import { analyze, ftsOrQuery, queryTerms } from '../../../services/embedder/src/text/analyzer.js';
import { fuse, normalisedScore } from '../../../services/embedder/src/fusion.js';

test('Porter stemmer: examples of the paper', () => {
  const cases: Record<string, string> = {
    caresses: 'caress', ponies: 'poni', ties: 'ti', caress: 'caress', cats: 'cat', feed: 'feed', agreed: 'agre', plastered: 'plaster',
    bled: 'bled', motoring: 'motor', sing: 'sing', conflated: 'conflat', troubled: 'troubl', sized: 'size', hopping: 'hop', tanned: 'tan',
    falling: 'fall', hissing: 'hiss', fizzed: 'fizz', failing: 'fail', filing: 'file', happy: 'happi', sky: 'sky', relational: 'relat',
    conditional: 'condit', rational: 'ration', valenci: 'valenc', digitizer: 'digit', conformabli: 'conform', radicalli: 'radic',
    differentli: 'differ', vileli: 'vile', analogousli: 'analog', vietnamization: 'vietnam', predication: 'predic', operator: 'oper',
    feudalism: 'feudal', decisiveness: 'decis', hopefulness: 'hope', callousness: 'callous', formaliti: 'formal', sensitiviti: 'sensit',
    sensibiliti: 'sensibl', triplicate: 'triplic', formative: 'form', formalize: 'formal', electriciti: 'electr', electrical: 'electr',
    hopeful: 'hope', goodness: 'good', revival: 'reviv', allowance: 'allow', inference: 'infer', airliner: 'airlin', adjustable: 'adjust',
    defensible: 'defens', irritant: 'irrit', replacement: 'replac', adjustment: 'adjust', dependent: 'depend', adoption: 'adopt',
    homologou: 'homolog', communism: 'commun', activate: 'activ', angulariti: 'angular', homologous: 'homolog', effective: 'effect',
    bowdlerize: 'bowdler', probate: 'probat', rate: 'rate', cease: 'ceas', controll: 'control', roll: 'roll',
  };
  for (const [w, s] of Object.entries(cases)) assert.equal(porterStem(w), s, w);
});

test('analyze: folding, stopwords, stems, numbers and hyphens; queries quote terms for FTS5', () => {
  assert.deepEqual(analyze('The Tumours are GROWING in IL-6 mice; Café naïve 5-HT'), ['tumour', 'grow', 'il', '6', 'mice', 'cafe', 'naiv', '5', 'ht']);
  assert.deepEqual(queryTerms('cells cell CELLS of the'), ['cell']);
  assert.equal(ftsOrQuery(['a"b', 'near']), '"a""b" OR "near"');
  assert.equal(ftsOrQuery([]), null);
});

test('fusion: reciprocal rank, normalised scores ordered like fused values, threshold semantics', () => {
  const f = fuse([{ name: 'a', items: [{ key: 'x', rank: 1 }, { key: 'y', rank: 2 }] }, { name: 'b', items: [{ key: 'y', rank: 1 }] }]);
  assert.deepEqual(f.map((e) => e.key), ['y', 'x']);
  assert.deepEqual(f[0]!.ranks, { a: 2, b: 1 });
  assert.ok(Math.abs(normalisedScore(1 / 61) - 2 / 3) < 1e-9, 'rank 1 of one retriever');
  assert.ok(Math.abs(normalisedScore(2 / 61) - 0.8) < 1e-9, 'rank 1 of two');
  assert.ok(normalisedScore(1 / 70) > 0.5, 'rank 10 of one retriever passes 0.5');
  assert.ok(normalisedScore(1 / 200) < 0.5, 'a deep tail match does not');
});
