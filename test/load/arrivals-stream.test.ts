import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  PRESETS, planArrivals, scenarioToArrivals, checkPlanSize, DEFAULT_LOAD_LIMITS, LoadLimitError, findPreset, type Scenario,
} from '@inferscope/core/load';

const CUSTOM: Scenario[] = [
  { name: 'overlapping-bursts', seed: 5, models: [{ value: 'a', weight: 1 }, { value: 'b', weight: 2 }], phases: [
    { type: 'burst', duration_s: 3, rate: 50, burst_size: 40, burst_every_s: 0.01, burst_spread_us: 30000 },
    { type: 'poisson', duration_s: 1, rate: 300 },
    { type: 'closed', duration_s: 1, concurrency: 2 },
    { type: 'burst', duration_s: 0.5, rate: 0, burst_size: 7, burst_every_s: 0.1, burst_spread_us: 500000 },
    { type: 'replay', duration_s: 0.2, speed: 2, arrivals: [{ t_us: 300, batch_size: 2 }, { t_us: 100, batch_size: 1, model: 'x' }, { t_us: 100, batch_size: 3 }, { t_us: 999999, batch_size: 1 }] },
    { type: 'ramp', duration_s: 1, from: 500, to: 10, arrival: 'uniform' },
    { type: 'constant', duration_s: 0.3, rate: 77 },
    { type: 'idle', duration_s: 1 },
    { type: 'ramp', duration_s: 2, from: 0, to: 900 },
  ] },
];

const hash = (x: unknown) => createHash('sha256').update(JSON.stringify(x)).digest('hex').slice(0, 16);

/**
 * Count, arrivals and the closed-loop sampler's next draws of every preset and a scenario of every phase
 * type (overlapping bursts, unsorted replay arrivals, fractional ramps), as the up-front schedule of
 * main (ccd9081) produced them: the lazy stream must reproduce them exactly, so recorded traces and
 * seeded tests stay valid.
 */
const BEFORE: Record<string, string> = {
 "steady/1": "1000:194decb45bdb1a9a:0f1199fb76d5856c",
 "steady/42": "1000:194decb45bdb1a9a:0f1199fb76d5856c",
 "steady/7": "1000:194decb45bdb1a9a:0f1199fb76d5856c",
 "poisson/1": "992:435ebe3d9f735242:0f1199fb76d5856c",
 "poisson/42": "1027:0c3716da8d3b60f5:0f1199fb76d5856c",
 "poisson/7": "897:4be026a3b7fa1b83:0f1199fb76d5856c",
 "burst/1": "448:8daedcaf5ab9daae:0f1199fb76d5856c",
 "burst/42": "457:1307a9d9bc7cb84c:0f1199fb76d5856c",
 "burst/7": "405:1b4edd6198da09fd:0f1199fb76d5856c",
 "ramp/1": "4148:4af66d4f7227756b:0f1199fb76d5856c",
 "ramp/42": "4039:f046ff12b606f696:0f1199fb76d5856c",
 "ramp/7": "4088:07018ddfeaca5de8:0f1199fb76d5856c",
 "overload/1": "40125:6d9f164ff57dfa28:0f1199fb76d5856c",
 "overload/42": "40073:9beb156f04ac13be:0f1199fb76d5856c",
 "overload/7": "39632:87ed08c13a48d274:0f1199fb76d5856c",
 "lunch-rush/1": "4736:9df4f3ad5da5675b:0f1199fb76d5856c",
 "lunch-rush/42": "4845:3bb5c649872955de:0f1199fb76d5856c",
 "lunch-rush/7": "4784:4544c1475d3efe08:0f1199fb76d5856c",
 "mixed-priorities/1": "2011:d19ebedeabaea41f:3bc4652158a45320",
 "mixed-priorities/42": "2081:15d4713ab16e1a67:714761a0ea25d4a9",
 "mixed-priorities/7": "1884:aa37fa36f8436364:714761a0ea25d4a9",
 "trickle/1": "49:271f2e0b1fbd183b:0f1199fb76d5856c",
 "trickle/42": "48:7a47f60aa007a8d7:0f1199fb76d5856c",
 "trickle/7": "55:a4c67c610d576d4c:0f1199fb76d5856c",
 "closed-loop/1": "0:4f53cda18c2baa0c:0f1199fb76d5856c",
 "closed-loop/42": "0:4f53cda18c2baa0c:0f1199fb76d5856c",
 "closed-loop/7": "0:4f53cda18c2baa0c:0f1199fb76d5856c",
 "variable-length/1": "2011:133cfa988be8b99a:e2686fcc19f5a59b",
 "variable-length/42": "2081:1579dbbc1ac10209:42ab99014081b4a9",
 "variable-length/7": "1884:0fdb676ab8317849:672d53181708496c",
 "big-requests/1": "992:6b83918cd6d3ccae:0f1199fb76d5856c",
 "big-requests/42": "1027:f12dcde9c401dda8:0f1199fb76d5856c",
 "big-requests/7": "897:86ba49bb4e49f19d:b691c6a0e22a1388",
 "overlapping-bursts/1": "13681:f9705aab9b226c50:be6685afed1fd6f3",
 "overlapping-bursts/42": "13656:4b30f84381bf8af4:be6685afed1fd6f3",
 "overlapping-bursts/7": "13711:5fe3692c134e98fd:f3f37d36f2fc9ef3",
};

test('the lazy stream yields exactly the arrivals the up-front schedule did, for every preset and phase type', () => {
  for (const s of [...PRESETS, ...CUSTOM]) {
    for (const seed of [1, 42, 7]) {
      const eager = scenarioToArrivals(s, { seed, model: 'm' });
      const got = `${eager.arrivals.length}:${hash(eager.arrivals)}:${hash([1, 2, 3].map(() => eager.sampler.sample(5)))}`;
      assert.equal(got, BEFORE[`${s.name}/${seed}`], `${s.name} seed ${seed}`);
      const lazy = [...planArrivals(s, { seed, model: 'm' }).open()];
      assert.equal(hash(lazy), hash(eager.arrivals), `${s.name} seed ${seed}: lazy and eager agree`);
    }
  }
});

test('every open() is a fresh stream with the same sequence, and reading a little generates a little', () => {
  const plan = planArrivals(findPreset('poisson')!, { rate: 100_000, duration_s: 3600, seed: 9 });
  // 360 million expected arrivals: refused as a whole ...
  assert.throws(() => checkPlanSize(plan.size), LoadLimitError);
  assert.throws(() => scenarioToArrivals(findPreset('poisson')!, { rate: 100_000, duration_s: 3600 }), /peak rate is 100,000 requests\/s/);
  // ... yet its stream can be read lazily: the first arrivals come at once, in order, the same each time
  const take = (n: number) => {
    const out = [];
    for (const a of plan.open()) {
      out.push(a.t_us);
      if (out.length === n) break;
    }
    return out;
  };
  const first = take(10_000);
  assert.deepEqual(take(10_000), first);
  assert.ok(first.every((t, i) => i === 0 || t >= first[i - 1]));
  assert.ok(first[first.length - 1] < 200_000, 'about 10,000 arrivals in the first 0.1 s at 100,000/s');
});

test('plan sizes: exact for constant and replay, the mean for Poisson; each limit named in its refusal', () => {
  const steady = planArrivals(findPreset('steady')!, { rate: 200, duration_s: 5 });
  assert.equal(steady.size.expected_requests, 1000);
  assert.equal([...steady.open()].length, 1000);
  assert.equal(steady.size.peak_rate_per_s, 200);
  const big = planArrivals(findPreset('steady')!, { rate: 20_000, duration_s: 3600 });
  assert.throws(() => checkPlanSize(big.size), /about 72,000,000 requests, more than the 5,000,000/);
  assert.doesNotThrow(() => checkPlanSize(big.size, { ...DEFAULT_LOAD_LIMITS, max_requests_per_run: 100_000_000 }));
  const closed = planArrivals(findPreset('closed-loop')!, { concurrency: 20_000 });
  assert.throws(() => checkPlanSize(closed.size), /concurrency 20,000/);
  const burst = planArrivals(findPreset('burst')!, {});
  assert.equal(burst.size.expected_requests, 10 * 20 + 5 * 50);
});
