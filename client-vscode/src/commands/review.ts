/** Code review: *Karyi: Review Changes* (palette, Source Control title) and the *Dismiss*
 * of a finding's code action, which keeps the server's command id (features/review.ts). */
import { dismissFinding, reviewChanges } from '../features/review';
import type { Commands } from './parts';

export const REVIEW_COMMANDS: Commands = {
  'karyi.review': (p) => reviewChanges(p.server),
  'karyi.dismissFinding': (p, args: unknown) => dismissFinding(p.server, args),
};
