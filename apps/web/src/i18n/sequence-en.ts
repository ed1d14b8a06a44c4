/** The dashboard's words for a stateful model's slots (the state and architecture views). */
export const SEQUENCE_EN = {
  seqSlotsTitle: 'Sequence slots (stateful models: which conversation holds which seat)',
  seqFree: 'free',
  seqBacklog: 'backlog',
  seqBacklogEmpty: 'no sequence waiting',
  seqStrategy: (s: string) => `strategy: ${s}`,
  seqStateMemory: (sequences: number, bytes: string) => `implicit state: ${sequences} sequence${sequences === 1 ? '' : 's'}, ${bytes}`,
  seqWaiting: (requests: number) => `${requests} req`,
  seqMore: (n: number) => `+${n} more`,
};
