/** The header of a card's small monospace table of figures (the cache and rate-limiter cards). */
export function FigureTableHead(props: { columns: string[] }) {
  return (
    <thead>
      <tr className="text-muted text-left">
        {props.columns.map((c) => <th key={c} className="pr-6 font-normal">{c}</th>)}
      </tr>
    </thead>
  );
}
