/**
 * Implicit state (sequence_batching.state): what each state tensor looks like at START, and the store that
 * carries a sequence's state from one step to the next (Triton's SequenceStates, sequence_state.cc). The
 * store counts the bytes it holds, so the server's memory ledger can show them, and frees a sequence's state
 * when its slot is released (END, idle timeout, unload): the count returns to zero when no sequence lives.
 */
import { datatypeByteSize } from '../../config/datatype';
import type { DataType } from '../../config/types';
import type { SequenceStateInput } from '../config-input';
import type { StateValue } from './types';

export interface StateSpec {
  inputName: string;
  outputName: string;
  dataType: string;
  /** the value every sequence starts from: zeros, or the configured initial_state */
  initial: StateValue;
}

export class StateConfigError extends Error {
  override name = 'StateConfigError';
}

const dim = (d: number | string): number => Number(d);

/**
 * The state specs of a config, checked with Triton's messages (SequenceBatchScheduler::Create and
 * GenerateInitialStateData). `initialData`: the bytes of initial_state data_file entries by state input
 * name (reading files is the server's job; core stays pure). Throws StateConfigError.
 */
export function stateSpecs(states: readonly SequenceStateInput[] | undefined, maxBatchSize: number, initialData: Readonly<Record<string, Uint8Array>> = {}): StateSpec[] {
  const specs: StateSpec[] = [];
  const seen = new Set<string>();
  for (const s of states ?? []) {
    const inputName = s.input_name ?? '';
    const dataType = s.data_type ?? 'TYPE_INVALID';
    const elem = datatypeByteSize(dataType as DataType);
    if (elem === 0) throw new StateConfigError(`implicit state '${inputName}' of data type ${dataType} is not supported: its size must be fixed`);
    if (s.use_growable_memory) throw new StateConfigError(`'use_growable_memory' can only work with KIND_GPU model instances right now, for state input '${inputName}'`);
    const init = s.initial_state ?? [];
    if (init.length > 1) {
      throw new StateConfigError(`initial_state field for state input '${inputName}' must contain exactly one or zero element. Found '${init.length}' elements.`);
    }
    const dims = (s.dims ?? []).map(dim);
    let shape = dims.map((d) => (d === -1 ? 1 : d)); // Triton: a variable dim starts at 1
    let data: Uint8Array | undefined;
    if (init.length === 1) {
      const i = init[0]!;
      if ((i.data_type ?? 'TYPE_INVALID') !== dataType) throw new StateConfigError(`The data type used for 'initial_state' field of state '${inputName}' does not match the state data type.`);
      if (!i.name) throw new StateConfigError(`Field 'name' must be set when using initial_state for state input '${inputName}'.`);
      if (seen.has(inputName)) throw new StateConfigError(`State input name '${inputName}' specified more than once.`);
      const idims = (i.dims ?? []).map(dim);
      if (idims.length !== dims.length) {
        throw new StateConfigError(`Number of dimensions in 'initial_state' doesn't match the size of 'state' dimensions for state input '${inputName}'. ${idims.length} != ${dims.length}`);
      }
      idims.forEach((d, k) => {
        if (d === -1) throw new StateConfigError(`'initial_state' field for state input name '${inputName}' contains variable dimensions.`);
        if (dims[k] !== -1 && d !== dims[k]) throw new StateConfigError(`'initial_state' dim for input name '${inputName}' doesn't match 'state' dim description. ${d} != ${dims[k]}`);
      });
      shape = idims;
      const bytes = shape.reduce((n, d) => n * d, elem);
      if (i.data_file) {
        const file = initialData[inputName];
        if (!file) throw new StateConfigError(`initial_state data_file '${i.data_file}' of state '${inputName}' was not provided`);
        if (file.byteLength < bytes) throw new StateConfigError(`initial_state setting expects ${bytes} bytes, but the data provided from ${i.data_file}only has ${file.byteLength} bytes.`);
        data = file.slice(0, bytes);
      } else if (!i.zero_data) {
        throw new StateConfigError(`initial_state setting expects state'${inputName}' to have state_data set`);
      }
    }
    seen.add(inputName);
    const full = maxBatchSize > 0 ? [1, ...shape] : shape;
    data ??= new Uint8Array(full.reduce((n, d) => n * d, elem));
    specs.push({ inputName, outputName: s.output_name ?? '', dataType, initial: { dataType, shape: full, data } });
  }
  return specs;
}

/** Live state per holder (a slot), with the bytes held. */
export class StateStore {
  private readonly held = new Map<string, Record<string, StateValue>>();
  private total = 0;

  /** `onChange`: told the new total whenever it changes (the server's memory ledger) */
  constructor(
    private readonly specs: readonly StateSpec[],
    private readonly onChange?: (bytes: number) => void,
  ) {}

  get enabled(): boolean {
    return this.specs.length > 0;
  }

  /** bytes of state held for live sequences */
  get bytes(): number {
    return this.total;
  }

  get count(): number {
    return this.held.size;
  }

  /** The state a step of `holder` reads; `restart` (a START) begins from the initial values again. */
  input(holder: string, restart: boolean): Record<string, StateValue> {
    if (!this.enabled) return {};
    let s = restart ? undefined : this.held.get(holder);
    if (!s) {
      this.free(holder);
      s = {};
      for (const spec of this.specs) s[spec.inputName] = spec.initial;
      this.held.set(holder, s);
      this.add(sizeOf(s));
    }
    return s;
  }

  /** The initial values, for a null request (Triton gives it a dummy state so the real one is untouched). */
  initial(): Record<string, StateValue> {
    const s: Record<string, StateValue> = {};
    for (const spec of this.specs) s[spec.inputName] = spec.initial;
    return s;
  }

  /** A step's state outputs (by output_name) become the holder's next inputs; a state not written keeps its value. */
  update(holder: string, out: Readonly<Record<string, StateValue>> | undefined): void {
    const s = this.held.get(holder);
    if (!s || !out) return;
    const next = { ...s };
    for (const spec of this.specs) {
      const v = out[spec.outputName];
      if (v) next[spec.inputName] = v;
    }
    this.held.set(holder, next);
    this.add(sizeOf(next) - sizeOf(s));
  }

  free(holder: string): void {
    const s = this.held.get(holder);
    if (!s) return;
    this.held.delete(holder);
    this.add(-sizeOf(s));
  }

  private add(delta: number): void {
    if (delta === 0) return;
    this.total += delta;
    this.onChange?.(this.total);
  }
}

function sizeOf(s: Record<string, StateValue>): number {
  let n = 0;
  for (const v of Object.values(s)) n += v.data.byteLength;
  return n;
}
