// How a statement ended: normally, or by break, continue or return (the value waits in the
// interpreter). Statements return these rather than throwing, so loops stay cheap.

export const NORMAL = 0, BREAK = 1, CONTINUE = 2, RETURN = 3;
export type Completion = typeof NORMAL | typeof BREAK | typeof CONTINUE | typeof RETURN;
