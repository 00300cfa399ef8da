// Top-N table of a V8 CPU profile (`node --cpu-prof`): self time by function and by package, as
// markdown; `--inclusive` counts the time under each function or package instead (self plus callees).
// `--busiest S`: only the S-second span with the most non-idle samples; `--window FROM,TO`: only
// that span, in seconds from the profile's start (a benchmark's measured round without the start-up
// before it or the stop after it; the header line prints the span `--busiest` found, in those seconds).
// Usage: npx tsx scripts/profile-top.ts <file.cpuprofile> [--top 25] [--by function|package|file] [--inclusive] [--busiest S | --window FROM,TO]
import { busiestWindow, frameLabel, packageOf, readProfile, selfTimes, shortUrl, type ProfileNode, type Window } from './cpu-profile.js';

const args = process.argv.slice(2);
const file = args.find((arg) => !arg.startsWith('--'));
if (!file) throw new Error('Usage: npx tsx scripts/profile-top.ts <file.cpuprofile> [--top 25] [--by function|package|file]');
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1]! : fallback;
};
const top = Number(option('top', '25'));
const by = option('by', 'function');

const profile = readProfile(file);
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const busiest = args.includes('--busiest') ? busiestWindow(profile, Number(option('busiest', '5'))) : undefined;
const given = args.includes('--window') ? option('window', '').split(',').map(Number) : undefined;
const window: Window | undefined = busiest ?? (given ? { fromUs: profile.startTime + given[0]! * 1e6, toUs: profile.startTime + given[1]! * 1e6 } : undefined);
const selfUs = selfTimes(profile, window);
const totalUs = window ? window.toUs - window.fromUs : profile.endTime - profile.startTime;

function keyOf(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  if (by === 'package') return packageOf(url);
  if (by === 'file') return shortUrl(url) || `(${functionName || 'native'})`;
  return frameLabel(node);
}

const inclusive = args.includes('--inclusive');
const parents = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
const totals = new Map<string, number>();
for (const [id, us] of selfUs) {
  // Inclusive: every distinct key on the sample's stack gets its time once (recursion counted once).
  const keys = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = inclusive ? parents.get(at) : undefined) keys.add(keyOf(nodes.get(at)!));
  for (const key of keys) totals.set(key, (totals.get(key) ?? 0) + us);
}
const rows = [...totals].sort((a, b) => b[1] - a[1]).slice(0, top);
console.log(`Profile ${file}: ${(totalUs / 1000).toFixed(0)} ms sampled${window ? ` (${((window.fromUs - profile.startTime) / 1e6).toFixed(1)} s to ${((window.toUs - profile.startTime) / 1e6).toFixed(1)} s)` : ''}; ${inclusive ? 'inclusive' : 'self'} time by ${by}, top ${top}\n`);
console.log(`| ${by} | ${inclusive ? 'inclusive' : 'self'} ms | share |\n|---|---:|---:|`);
for (const [key, us] of rows) console.log(`| ${key.replaceAll('|', '\\|')} | ${(us / 1000).toFixed(1)} | ${((us / totalUs) * 100).toFixed(1)}% |`);
