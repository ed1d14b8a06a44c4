/**
 * Lesson 2's common mistakes, each checked live as the server checks a config (mistake-verdict.ts).
 * Learners can edit the text and see Triton's message, with a hint, change as they type.
 */
import { useEffect, useMemo, useState } from 'react';
import { takeFocus } from './focus';
import { MISTAKE_EXAMPLES, mistakeVerdict } from './mistake-verdict';
import { S } from '../i18n/strings';
import { appStore } from '../store/app-store';


export function MistakeChecker() {
  // the example can come from a shared link (?ex=) or a misconception card
  const [pick, setPick] = useState(() => Math.min(MISTAKE_EXAMPLES.length - 1, appStore.getState().ex ?? 0));
  const [text, setText] = useState(MISTAKE_EXAMPLES[pick].text);
  useEffect(takeFocus, []);
  const verdict = useMemo(() => mistakeVerdict(text, S.mistakes.valid), [text]);
  return (
    <div className="space-y-2" data-testid="mistake-checker">
      <h3 className="text-xs uppercase tracking-wide text-muted">{S.mistakes.heading}</h3>
      <select className="input w-full" value={pick} onChange={(e) => { const i = Number(e.target.value); setPick(i); setText(MISTAKE_EXAMPLES[i].text); appStore.setState({ ex: i || undefined }); }} aria-label={S.mistakes.pick} data-testid="mistake-pick">
        {MISTAKE_EXAMPLES.map((_, i) => <option key={i} value={i}>{S.mistakes.examples[i]}</option>)}
      </select>
      <textarea className="input w-full font-mono text-xs" rows={7} value={text} onChange={(e) => setText(e.target.value)} spellCheck={false} aria-label="config.pbtxt" />
      {/* the server's own message, verbatim (Triton's wording, as a Chinese Triton user also sees it) */}
      <p className={`text-sm ${verdict.ok ? 'text-ok' : 'text-danger'}`} data-testid="mistake-verdict">
        {verdict.ok ? verdict.message : <><span className="font-semibold">{S.mistakes.serverSays} </span><span data-verbatim lang="en">{verdict.message}</span></>}
      </p>
    </div>
  );
}
