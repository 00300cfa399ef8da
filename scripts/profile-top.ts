// Top-N table of a V8 CPU profile (`node --cpu-prof`): self time by function and by package, as
// markdown; `--inclusive` counts the time under each function or package instead (self plus callees).
// Usage: npx tsx scripts/profile-top.ts <file.cpuprofile> [--top 25] [--by function|package|file] [--inclusive]
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

const args = process.argv.slice(2);
const file = args.find((arg) => !arg.startsWith('--'));
if (!file) throw new Error('Usage: npx tsx scripts/profile-top.ts <file.cpuprofile> [--top 25] [--by function|package|file]');
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1]! : fallback;
};
const top = Number(option('top', '25'));
const by = option('by', 'function');

const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
const totalUs = profile.endTime - profile.startTime;

/** Where a frame's code lives: a package under node_modules, a project file, node's own, or V8's. */
function packageOf(url: string): string {
  if (!url) return '(native / V8)';
  const at = url.lastIndexOf('node_modules/');
  if (at >= 0) {
    const parts = url.slice(at + 'node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (url.startsWith('node:')) return 'node (core)';
  const dist = /\/(?:dist|source)\/(.+)$/.exec(url);
  return dist ? `switchboard ${dist[1]!.split('/')[0]}/` : url;
}
function keyOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  if (by === 'package') return packageOf(url);
  const short = url.replace(/^.*node_modules\//, '').replace(/^.*\/(dist|source)\//, '');
  if (by === 'file') return short || `(${functionName || 'native'})`;
  return `${functionName || '(anonymous)'} ${short ? `${short}:${lineNumber + 1}` : ''}`.trim();
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
console.log(`Profile ${file}: ${(totalUs / 1000).toFixed(0)} ms sampled; ${inclusive ? 'inclusive' : 'self'} time by ${by}, top ${top}\n`);
console.log(`| ${by} | ${inclusive ? 'inclusive' : 'self'} ms | share |\n|---|---:|---:|`);
for (const [key, us] of rows) console.log(`| ${key.replaceAll('|', '\\|')} | ${(us / 1000).toFixed(1)} | ${((us / totalUs) * 100).toFixed(1)}% |`);
