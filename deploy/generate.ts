/** Writes deploy/kubernetes/inferscope.yaml and deploy/grafana/inferscope.json from the typed sources. */
import { writeFileSync } from 'node:fs';
import { renderManifests } from './kubernetes/manifests.ts';
import { renderDashboard } from './grafana/dashboard.ts';

export const OUTPUTS: Array<[path: string, render: () => string]> = [
  ['kubernetes/inferscope.yaml', renderManifests],
  ['grafana/inferscope.json', renderDashboard],
];

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  for (const [path, render] of OUTPUTS) {
    writeFileSync(new URL(path, import.meta.url), render());
    console.log(`wrote deploy/${path}`);
  }
}
