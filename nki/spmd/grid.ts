// SPMD launch grids: kernel[2, 2] in Python, kernel[[2, 2]] or kernel["2,2"]
// in JavaScript (a property key is a string: [2, 2] arrives as "2,2"). An
// instance is its program ids, one per grid dimension; instances are numbered
// in row-major order (the last dimension fastest), the order the sequential
// run takes them in.
import { ArgumentError } from "../../host/checks/errors.js";

/** NKI grids have at most this many dimensions (nl.program_id(axis) takes axis 0 to 3). */
export const MAX_GRID_DIMS = 4;

/** A property key that names a grid: "2", "2,2", "4, 2, 1". */
const GRID_KEY = /^\s*\d+\s*(,\s*\d+\s*){0,3}$/;

/** True when a property key is a grid ("2,2"), not a property name. */
export function isGridKey(key: string): boolean {
  return GRID_KEY.test(key);
}

/** The grid of a key or a list of sizes, checked: 1 to 4 positive integers. */
export function parseGrid(dims: readonly unknown[] | string, kernel: string): number[] {
  const list = typeof dims === "string" ? dims.split(",").map((d) => Number(d.trim())) : [...dims];
  const shown = typeof dims === "string" ? dims : list.map(String).join(", ");
  if (list.length === 0 || list.length > MAX_GRID_DIMS || !list.every((d) => Number.isInteger(d) && (d as number) >= 1)) {
    throw new ArgumentError("E_NKI_GRID", `${kernel}[${shown}]: a launch grid is 1 to ${MAX_GRID_DIMS} positive integers, e.g. ${kernel}[[2, 2]] or ${kernel}.grid(2, 2)`, { details: { kernel, grid: list } });
  }
  return list as number[];
}

/** Number of instances in a grid. */
export function instanceCount(grid: readonly number[]): number {
  return grid.reduce((a, b) => a * b, 1);
}

/** The program ids of instance number `index` (row-major: the last dimension varies fastest). */
export function instanceAt(grid: readonly number[], index: number): number[] {
  const ids = new Array<number>(grid.length);
  for (let d = grid.length - 1; d >= 0; d--) {
    ids[d] = index % grid[d];
    index = Math.floor(index / grid[d]);
  }
  return ids;
}

/** "[1, 0]" */
export function instanceText(ids: readonly number[]): string {
  return `[${ids.join(", ")}]`;
}
