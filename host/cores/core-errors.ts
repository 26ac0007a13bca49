// The errors of one multicore launch, as one error: the cores of a multicore
// kernel run the same code, so a bug usually fails several (often all eight)
// alike. Errors of the same kind at the same kernel line are one message that
// lists the cores and keeps the first core's details (its index, its address
// list), as the warnings of several cores are merged; different errors follow
// it as "also:" notes.
import type { GpsimdError } from "../checks/errors.js";

/** A group of cores whose errors are alike, and the first of them. */
interface AlikeErrors { first: GpsimdError; cores: number[] }

/** What makes two cores' errors alike: the kind and the kernel statement (or, without a place, the message but its core). */
function alikeKey(e: GpsimdError): string {
  const file = e.details.file, line = e.details.line;
  const place = typeof file === "string" && typeof line === "number" ? `${file}:${line}` : e.message.replace(/\(core \d+\)/g, "(core *)");
  return `${e.name}\0${e.code}\0${place}`;
}

/** "0-3, 5, 7" */
export function coreRanges(cores: number[]): string {
  const sorted = [...cores].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j;
  }
  return parts.join(", ");
}

/** The message of a group: the first core's, naming every core of the group where it names its own. */
function groupMessage({ first, cores }: AlikeErrors): string {
  if (cores.length === 1) return first.message;
  const own = `(core ${first.core})`;
  const all = `(cores ${coreRanges(cores)}, alike; the details are core ${first.core}'s)`;
  return first.message.includes(own) ? first.message.replace(own, all) : `${first.message}\nthe same error on cores ${coreRanges(cores)}`;
}

/** The launch's errors in groups of alike ones: the error to throw (the first group's) and one note per other group. */
export function mergeCoreErrors(errors: GpsimdError[]): { first: GpsimdError; message: string; notes: string[]; failedCores: number[] } {
  const groups = new Map<string, AlikeErrors>();
  for (const e of errors) {
    const key = alikeKey(e);
    const group = groups.get(key);
    if (group) group.cores.push(e.core ?? -1);
    else groups.set(key, { first: e, cores: [e.core ?? -1] });
  }
  const [head, ...rest] = [...groups.values()];
  return {
    first: head.first, message: groupMessage(head), notes: rest.map((g) => `also: ${groupMessage(g)}`),
    failedCores: errors.map((e) => e.core ?? -1),
  };
}
