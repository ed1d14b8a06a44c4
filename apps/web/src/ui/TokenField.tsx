/** Viewers can paste the control token here to become a controller (the socket reconnects with it). */
import { useState } from 'react';
import { S } from '../strings';

export function TokenField(props: { onToken(token: string): void }) {
  const [value, setValue] = useState('');
  return (
    <form className="flex gap-2 items-end" onSubmit={(e) => { e.preventDefault(); props.onToken(value.trim()); }} data-testid="token-form">
      <label className="field flex-1">
        <span>{S.tokenLabel}</span>
        <input type="password" className="input" value={value} onChange={(e) => setValue(e.target.value)} autoComplete="off" />
      </label>
      <button type="submit" className="btn">{S.tokenApply}</button>
    </form>
  );
}
