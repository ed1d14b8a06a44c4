/**
 * Simulates saved fidelity rounds again (run.ts writes one round-STAMP-RUN-CASE.json per case and round:
 * the calibration and host the simulation got, the trace file, the real server's summary), with the
 * simulator as it is now. A change to the simulator is then judged against the same real runs, free of
 * the shared host's drift between one bench run and the next.
 *
 *   node --import tsx bench/sim-fidelity/resim.ts [--stamp YYYYMMDDHHMM[,...]] [--case 0,3]
 *        [--without LIST] [--with spin-isolated] [--also-without LIST] [--dir DIR]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTrace, traceToScenario } from '@inferscope/core/load';
import type { SimSummary } from '@inferscope/core/sim';
import { arg } from '../args';
import { CASES, type Case } from './real-run';
import { mechanismOptions, simulateCase, type SavedRound } from './sim-side';
import { caseLabel, mediansTable, roundCells } from './report';

const dir = arg('--dir', fileURLToPath(new URL('./out/', import.meta.url)));
const stamps = arg('--stamp', '').split(',').filter(Boolean);
const only = arg('--case', '').split(',').filter(Boolean).map(Number);
const { without, alsoWithout } = mechanismOptions();

const files = readdirSync(dir).filter((f) => /^round-\d+-\d+-\d+\.json$/.test(f)).filter((f) => {
  const [, stamp, , ci] = f.match(/^round-(\d+)-(\d+)-(\d+)\.json$/)!;
  return (stamps.length === 0 || stamps.includes(stamp)) && (only.length === 0 || only.includes(Number(ci)));
}).sort();
if (files.length === 0) throw new Error(`no saved rounds in ${dir}${stamps.length ? ` for ${stamps.join(',')}` : ''}: run run.ts first`);

const traces = new Map<string, ReturnType<typeof parseTrace>>();
const rows = new Map<string, { real: SimSummary; sim: SimSummary; ablated?: SimSummary }[]>();
/** the cases as the rounds ran them (a case's rate may have changed since) */
const ranAs = new Map<string, Case>();
for (const f of files) {
  const saved = JSON.parse(readFileSync(join(dir, f), 'utf8')) as SavedRound;
  const trace = traces.get(saved.trace) ?? traces.set(saved.trace, parseTrace(readFileSync(saved.trace, 'utf8'))).get(saved.trace)!;
  const scenario = traceToScenario(trace);
  const sim = simulateCase(saved.case, scenario, saved.calibration, saved.host, without).summary;
  const ablated = alsoWithout.size ? simulateCase(saved.case, scenario, saved.calibration, saved.host, new Set([...without, ...alsoWithout])).summary : undefined;
  ranAs.set(saved.case.name, saved.case);
  (rows.get(saved.case.name) ?? rows.set(saved.case.name, []).get(saved.case.name)!).push({ real: saved.real, sim, ablated });
  console.log(`${f} | ${caseLabel(saved.case)} | ${roundCells(sim, saved.real)} | load then ${saved.load.toFixed(1)}`);
}
const cases: Case[] = CASES.filter((c) => rows.has(c.name)).map((c) => ranAs.get(c.name)!);
const rowsOf = (c: Case) => rows.get(c.name) ?? [];
console.log(mediansTable(`medians over ${files.length} saved round(s), simulated now / real then (difference)${without.size ? `, without ${[...without].join(', ')}` : ''}:`, cases, rowsOf, (x) => x.sim));
if (alsoWithout.size) console.log(mediansTable(`also without ${[...alsoWithout].join(', ')}:`, cases, rowsOf, (x) => x.ablated!));
