/** What the route plugins share. */
import type { Logger } from 'pino';
import type { TurnEventClient } from '../../../shared/events/turn-events.js';
import type { RouterClassifier } from '../clients/classifier.js';
import type { GuardrailConfig } from '../contracts.js';
import type { GuardStore } from '../store/guard-store.js';

export interface GuardContext {
  cfg: GuardrailConfig;
  store: GuardStore;
  events: TurnEventClient;
  classifier: RouterClassifier;
  logger: Logger;
}
