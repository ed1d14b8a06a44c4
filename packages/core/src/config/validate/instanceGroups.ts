/**
 * Instance group rules (Triton's ValidateInstanceGroup), checked against the GPUs of the host the config
 * is validated for: ids 0..gpuCount-1.
 */
import { nameOf, type Rule } from './issues';
import { PLATFORM } from '../platforms';

export const validateInstanceGroups: Rule = (config, issues, opts) => {
  if (config.ensemble_scheduling) return;
  const name = nameOf(config);
  const groups = config.instance_group ?? [];
  if (groups.length === 0) {
    issues.add(`must specify one or more 'instance group's for ${name}`, 'instance_group');
    return;
  }
  const gpuCount = Math.max(0, Math.floor(opts.gpuCount));
  const capability = (opts.minComputeCapability ?? 6).toFixed(6);
  const onThisHost = gpuCount === 0
    ? 'this host has no GPUs'
    : `this host has ${gpuCount} GPU${gpuCount > 1 ? 's' : ''} (ids 0..${gpuCount - 1})`;

  groups.forEach((group, i) => {
    const path = `instance_group[${i}]`;
    const g = `instance group ${group.name ?? ''} of model ${name}`;
    const gpus = group.gpus ?? [];
    const kind = group.kind ?? 'KIND_AUTO';
    if (kind === 'KIND_MODEL' || kind === 'KIND_CPU') {
      if (gpus.length > 0) {
        issues.add(`${g} has kind ${kind} but specifies one or more GPUs`, `${path}.gpus`,
          kind === 'KIND_CPU' ? 'remove gpus, or use kind: KIND_GPU to run on those GPUs' : 'remove gpus: the backend places KIND_MODEL instances itself');
        return;
      }
    } else if (kind === 'KIND_GPU') {
      if (gpus.length === 0) {
        issues.add(
          gpuCount === 0 ? `${g} has kind KIND_GPU but no GPUs are available` : `${g} has kind KIND_GPU but specifies no GPUs`,
          `${path}.kind`,
          `${onThisHost}; use kind: KIND_CPU, or KIND_AUTO to use a GPU only where there is one (--gpus N checks for another host)`,
        );
        return;
      }
      const bad = gpus.find((id) => !Number.isInteger(id) || id < 0 || id >= gpuCount);
      if (bad !== undefined) {
        const supported = Array.from({ length: gpuCount }, (_, k) => k).join(', ');
        issues.add(
          `${g} specifies invalid or unsupported gpu id ${bad}. GPUs with at least the minimum required CUDA compute ` +
            `compatibility of ${capability} are: ${supported}`,
          `${path}.gpus`,
          `${onThisHost}; GPU ids count from 0 (--gpus N checks for another host)`,
        );
        return;
      }
    } else {
      issues.add(`${g} has unexpected kind KIND_AUTO`, `${path}.kind`,
        'KIND_AUTO is resolved by normalizeModelConfig(); validate the normalised config');
      return;
    }

    const profiles = group.profile ?? [];
    if (profiles.length === 0) return;
    const platform = config.platform ?? '';
    if (platform !== PLATFORM.tensorrtPlan) {
      issues.add(`${g} and platform ${platform} specifies profile field which is only supported for TensorRT models`, `${path}.profile`);
      return;
    }
    for (const profile of profiles) {
      if (profile === '') {
        issues.add('profile name must not be empty', `${path}.profile`);
        return;
      }
      const m = /^\s*([+-]?\d+)/.exec(profile); // stoi reads a leading integer
      if (!m) {
        issues.add(`unable to parse '${profile}': stoi`, `${path}.profile`, 'a profile is the index of a TensorRT optimization profile, e.g. "0"');
        return;
      }
      if (Number(m[1]) < 0) {
        issues.add(`${g} and platform ${platform} specifies invalid profile ${profile}. ` +
          'The field should contain the string representation of a non-negative integer.', `${path}.profile`);
        return;
      }
    }
  });
};
