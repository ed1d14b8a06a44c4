/** Viewers can paste the control token here to become a controller (the socket reconnects with it). */
import { useState } from 'react';
import { S } from '../i18n/strings';

export function TokenField(props: { onToken(token: string): void; /** a token was sent and the server did not accept it */ refused?: boolean }) {
  const [value, setValue] = useState('');
  return (
    <>
    {props.refused && <div className="note text-danger" role="alert" data-testid="token-refused">{S.tokenRefused}</div>}
    <form className="flex gap-2 items-end" onSubmit={(e) => { e.preventDefault(); props.onToken(value.trim()); }} data-testid="token-form">
      <label className="field flex-1">
        <span>{S.tokenLabel}</span>
        <input type="password" className="input" value={value} onChange={(e) => setValue(e.target.value)} autoComplete="off" />
      </label>
      <button type="submit" className="btn">{S.tokenApply}</button>
    </form>
    </>
  );
}
