/** A sentence naming a command-line flag: the flag is code (the same in every language), the rest is text. */
export function FlagText(props: { text: string; flag: string }) {
  const [before, after = ''] = props.text.split('{flag}');
  return <>{before}<code>{props.flag}</code>{after}</>;
}
