/**
 * A token input (issue 17 item 6): a list of short strings shown as removable chips, added by typing
 * and pressing Enter or a comma (or leaving the field). Used for an agent's knowledge audiences, tags
 * and document ids and a plugin's roles and groups. `label` names the text box (`aria-label`) and
 * the chips' remove buttons ("Remove <label> <value>").
 */
import { useState, type KeyboardEvent } from 'react';

/** Props of `TokenInput`. */
export interface TokenInputProps {
  label: string;
  values: string[];
  onChange: (values: string[]) => void;
  /** Offered in a datalist while typing. */
  suggestions?: readonly string[];
  placeholder?: string;
  /** Error text shown under the field (a validation error of the server for it). */
  error?: string | null;
  disabled?: boolean;
}

/** Chips plus a text box; Enter, comma or blur adds the typed value (trimmed, no duplicates). */
export function TokenInput({ label, values, onChange, suggestions, placeholder, error, disabled }: TokenInputProps) {
  const [text, setText] = useState('');
  const listId = suggestions?.length ? `tokens-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}` : undefined;
  const commit = (): void => {
    const add = text.split(',').map((v) => v.trim()).filter((v) => v && !values.includes(v));
    if (add.length) onChange([...values, ...new Set(add)]);
    setText('');
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>): void => {
    if (e.key === 'Enter' || e.key === ',') { e.preventDefault(); commit(); }
    else if (e.key === 'Backspace' && !text && values.length) onChange(values.slice(0, -1));
  };
  return (
    <div className={`token-input${error ? ' has-error' : ''}`}>
      <span className="token-label">{label}</span>
      <div className="token-box">
        {values.map((v) => (
          <span key={v} className="token">{v}
            <button type="button" className="link" disabled={disabled} aria-label={`Remove ${label} ${v}`} onClick={() => onChange(values.filter((x) => x !== v))}>×</button>
          </span>
        ))}
        <input aria-label={label} value={text} placeholder={values.length ? '' : placeholder} list={listId} disabled={disabled}
          onChange={(e) => setText(e.target.value)} onKeyDown={onKey} onBlur={commit} />
        {listId && <datalist id={listId}>{suggestions!.filter((s) => !values.includes(s)).map((s) => <option key={s} value={s} />)}</datalist>}
      </div>
      {error && <span className="error small" role="alert">{error}</span>}
    </div>
  );
}
