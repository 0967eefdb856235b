/**
 * Admin → Identity (issue 15 item 5): upstream identity providers, the corporate directory
 * connection, enforcement of the second factor, and who signed in how.
 */
import { IdentityDirectory } from './IdentityDirectory';
import { IdentityIdps } from './IdentityIdps';
import { IdentitySecondFactor } from './IdentitySecondFactor';
import { IdentitySignIns } from './IdentitySignIns';

/** The Identity tab. */
export function IdentityPanel() {
  return (
    <div className="panel identity" data-testid="identity-panel">
      <IdentityIdps />
      <IdentityDirectory />
      <IdentitySecondFactor />
      <IdentitySignIns />
    </div>
  );
}
