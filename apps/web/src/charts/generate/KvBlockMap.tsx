/**
 * The KV cache's budget as a grid of blocks: each square one block, filled from the bottom as far as its
 * token slots hold tokens (a sequence's last block is usually partly filled: paging wastes at most that),
 * coloured by the sequence that owns it (the same colour as its row bars in the token timeline), empty
 * when free; a usage line (used / total, tokens in the held slots, reserved under guaranteed_no_evict) and
 * a legend of the owners in admission order. Plain props (core's KvBlockMap: the allocator's snapshot(),
 * a step event's `blocks`, or the model list's `kv_blocks`), no store. SVG without text; labels are HTML.
 */
import type { KvBlockMap as KvMap } from '@inferscope/core/kv-cache';
import { S } from '../../i18n/strings';
import { seqColour } from './seq-colour';

export interface KvBlockMapProps {
  map: KvMap;
  /** owners listed in the legend before "+N more" (default 8) */
  legendMax?: number;
}

/** a block's largest side: a small budget stays a grid of squares, not a wall of tiles */
const BLOCK_REM = 1.75;

/** Columns for n blocks: about three times as wide as tall, so a 256-block budget is a band, not a wall. */
export function gridColumns(n: number): number {
  return Math.max(1, Math.min(64, n, Math.ceil(Math.sqrt(3 * n))));
}

export function KvBlockMap(props: KvBlockMapProps) {
  const { map } = props;
  const n = map.blocks.length;
  const cols = gridColumns(n);
  const rowsN = Math.max(1, Math.ceil(n / cols));
  const u = map.usage;
  const pct = u.totalBlocks > 0 ? Math.round((100 * u.usedBlocks) / u.totalBlocks) : 0;
  const legendMax = props.legendMax ?? 8;
  const shown = map.sequences.slice(0, legendMax);
  return (
    <div
      className="text-sm space-y-1"
      data-testid="kv-block-map"
      data-total={u.totalBlocks}
      data-used={u.usedBlocks}
      data-free={u.freeBlocks}
      data-reserved={u.reservedBlocks}
      data-sequences={u.sequences}
      data-tokens={u.usedTokens}
      data-owners={map.sequences.map((s) => s.id).join(' ')}
    >
      <p className="flex flex-wrap gap-x-3" data-testid="kv-usage">
        <b>{S.genKvUsage(u.usedBlocks, u.totalBlocks, pct)}</b>
        <span>{S.genKvTokens(u.usedTokens, u.heldTokenSlots)}</span>
        {u.reservedBlocks > 0 && <span>{S.genKvReserved(u.reservedBlocks)}</span>}
        <span>{S.genKvSequences(u.sequences)}</span>
        <span className="text-muted font-mono">{map.policy}</span>
      </p>
      <svg className="block w-full" style={{ maxHeight: '16rem', maxWidth: `${cols * BLOCK_REM}rem` }} viewBox={`0 0 ${cols} ${rowsN}`} preserveAspectRatio="xMinYMin meet" role="img" aria-label={S.genKvUsage(u.usedBlocks, u.totalBlocks, pct)}>
        {map.blocks.map((b, i) => {
          const x = (i % cols) + 0.08;
          const y = Math.floor(i / cols) + 0.08;
          const fill = b.owner === null ? 0 : Math.max(0, Math.min(1, b.tokens / map.blockTokens));
          const colour = b.owner === null ? undefined : seqColour(b.owner);
          return (
            <g key={i} data-owner={b.owner ?? ''} data-tokens={b.tokens}>
              <rect x={x} y={y} width={0.84} height={0.84} rx={0.1} fill={colour ?? 'var(--c-bg)'} fillOpacity={colour ? 0.25 : 1} stroke={colour ?? 'var(--c-line)'} strokeWidth={0.06}>
                <title>{S.genKvBlockTip(i, b.owner, b.tokens, map.blockTokens)}</title>
              </rect>
              {fill > 0 && <rect x={x} y={y + 0.84 * (1 - fill)} width={0.84} height={0.84 * fill} rx={0.1} fill={colour} pointerEvents="none" />}
            </g>
          );
        })}
      </svg>
      {shown.length > 0 && (
        <div className="flex flex-wrap gap-x-3 gap-y-1" data-testid="kv-legend">
          {shown.map((s) => (
            <span key={s.id} className="inline-flex items-center gap-1 min-w-0">
              <span className="inline-block w-3 h-3 rounded-sm shrink-0" style={{ background: seqColour(s.id) }} />
              <span className="font-mono truncate max-w-[12rem]">{s.id}</span>
              <span className="text-muted">{S.genKvSeq(s.blocks.length, s.tokens)}</span>
            </span>
          ))}
          {map.sequences.length > shown.length && <span className="text-muted">{S.genMore(map.sequences.length - shown.length)}</span>}
        </div>
      )}
    </div>
  );
}
