/**
 * Account (issue 14 items 6 and 8; spec "Account devices"): pair a phone, the paired phones, recovery
 * codes, and (for the installer's administrator) a first password. `/account/welcome` is where the
 * desktop app lands after the installer handoff on first run (DESIGN.md "Identity": "then offers to
 * pair a phone"): the same page with a welcome and the pairing button in focus.
 */
import { useQuery } from '../api/cache';
import type { ProfileView } from '../api/types';
import { Link } from '../app/Link';
import { DevicesPanel } from './DevicesPanel';
import { PairPhone } from './PairPhone';
import { PasswordPanel } from './PasswordPanel';
import { RecoveryCodesPanel } from './RecoveryCodesPanel';

export default function AccountPage({ param }: { param: string | null }) {
  const me = useQuery<ProfileView>('/v1/user/me');
  const welcome = param === 'welcome';
  return (
    <div className="page account-page">
      <h1>Account</h1>
      {welcome && (
        <section className="notice info welcome" data-testid="first-run-pair">
          <p><strong>Your workstation is ready.</strong> Pair a phone now so that signing in takes your password and your phone: if someone learns the password, they still cannot get in.</p>
          <p className="small"><Link to="/chat">Skip for now</Link>: you can pair a phone here at any time.</p>
        </section>
      )}
      <PairPhone autoStart={welcome} />
      <DevicesPanel />
      <RecoveryCodesPanel />
      {me.data && <PasswordPanel me={me.data} />}
      <p className="muted small">Signed in as {me.data?.email ?? '…'}.</p>
    </div>
  );
}
