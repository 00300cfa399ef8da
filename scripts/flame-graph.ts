// Flame graph (SVG) of a V8 CPU profile (`node --cpu-prof`): each box is a function on the stack,
// its width the CPU time sampled under it, callers below callees; the same function called from one
// place is one box (V8's nodes merged by function, file and line). Colours say where the code lives:
// Switchboard, Node's core, a package, V8 (native, GC). Idle time is left out unless `--idle`, so the
// width is the process's CPU. Hover a box for its time and share. Open the SVG in a browser.
// Usage: npx tsx scripts/flame-graph.ts <file.cpuprofile> [--out file.svg] [--title "..."] [--idle] [--min-px 1]
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { frameLabel, packageOf, readProfile, selfTimes, type Profile, type ProfileNode } from './cpu-profile.js';

export interface FlameOptions {
  title?: string;
  /** Keep V8's `(idle)` frame (time the thread waited): off by default. */
  idle?: boolean;
  /** Boxes narrower than this many pixels are left out, with their callees. */
  minPx?: number;
  width?: number;
}

interface Frame { label: string; pkg: string; us: number; children: Frame[] }

const ROW = 17;
const PAD = 10;
const HEADER = 64;

/** The profile as a tree of frames, siblings with the same label merged, `us` inclusive. */
export function frameTree(profile: Profile, options: Pick<FlameOptions, 'idle'> = {}): Frame {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = selfTimes(profile);
  const childIds = new Set(profile.nodes.flatMap((node) => node.children ?? []));
  const root = profile.nodes.find((node) => !childIds.has(node.id))!;
  const build = (group: ProfileNode[]): Frame => {
    const first = group[0]!;
    const merged = new Map<string, ProfileNode[]>();
    for (const node of group) {
      for (const id of node.children ?? []) {
        const child = byId.get(id)!;
        if (!options.idle && child.callFrame.functionName === '(idle)') continue;
        const label = frameLabel(child);
        const same = merged.get(label);
        if (same) same.push(child);
        else merged.set(label, [child]);
      }
    }
    const children = [...merged.values()].map(build).sort((a, b) => a.label.localeCompare(b.label));
    const own = group.reduce((sum, node) => sum + (selfUs.get(node.id) ?? 0), 0);
    return { label: frameLabel(first), pkg: packageOf(first.callFrame.url), us: own + children.reduce((sum, child) => sum + child.us, 0), children };
  };
  const tree = build([root]);
  // The root's own samples are none; its width is what its kept children add up to.
  return { ...tree, label: 'all', us: tree.children.reduce((sum, child) => sum + child.us, 0) };
}

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** A stable small number from a string, to vary the shade of a colour by function. */
function shade(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (hash * 31 + text.charCodeAt(i)) >>> 0;
  return hash % 20;
}

/** Orange: Switchboard; green: Node's core; blue: packages; grey: V8 (native code, GC, the root). */
function colourOf(frame: Frame): string {
  const light = 55 + shade(frame.label);
  if (frame.pkg.startsWith('switchboard')) return `hsl(28, 85%, ${light}%)`;
  if (frame.pkg === 'node (core)') return `hsl(110, 45%, ${light}%)`;
  if (frame.pkg === '(native / V8)') return `hsl(0, 0%, ${light + 5}%)`;
  return `hsl(${195 + shade(frame.pkg) * 2}, 60%, ${light}%)`;
}

const LEGEND: Array<[string, string]> = [
  ['Switchboard', 'hsl(28, 85%, 62%)'], ['Node core', 'hsl(110, 45%, 62%)'], ['packages', 'hsl(205, 60%, 62%)'], ['V8 / native', 'hsl(0, 0%, 72%)'],
];

export function flameGraphSvg(profile: Profile, options: FlameOptions = {}): string {
  const width = options.width ?? 1200;
  const minPx = options.minPx ?? 1;
  const tree = frameTree(profile, options);
  const scale = (width - 2 * PAD) / Math.max(1, tree.us);
  const boxes: Array<{ frame: Frame; x: number; depth: number }> = [];
  const place = (frame: Frame, x: number, depth: number) => {
    if (frame.us * scale < minPx) return;
    boxes.push({ frame, x, depth });
    let at = x;
    for (const child of frame.children) {
      place(child, at, depth + 1);
      at += child.us * scale;
    }
  };
  place(tree, PAD, 0);
  const depth = Math.max(...boxes.map((box) => box.depth)) + 1;
  const height = HEADER + depth * ROW + PAD;
  const percent = (us: number) => ((us / Math.max(1, tree.us)) * 100).toFixed(2);
  const rects = boxes.map(({ frame, x, depth: level }) => {
    const w = frame.us * scale;
    const y = height - PAD - (level + 1) * ROW;
    const chars = Math.floor((w - 6) / 6.6);
    const text = chars < 3 ? '' : frame.label.length <= chars ? frame.label : `${frame.label.slice(0, chars - 2)}..`;
    return `<g><title>${escapeXml(`${frame.label} (${frame.pkg}): ${(frame.us / 1000).toFixed(1)} ms, ${percent(frame.us)}%`)}</title>`
      + `<rect x="${x.toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${ROW - 1}" fill="${colourOf(frame)}" rx="2"/>`
      + (text ? `<text x="${(x + 3).toFixed(2)}" y="${y + 12}">${escapeXml(text)}</text>` : '') + '</g>';
  });
  const legend = LEGEND.map(([name, fill], index) => `<rect x="${PAD + index * 130}" y="40" width="12" height="12" fill="${fill}"/><text x="${PAD + 16 + index * 130}" y="50">${name}</text>`);
  const subtitle = `${(tree.us / 1000).toFixed(0)} ms of CPU sampled${options.idle ? ' (idle included)' : ', idle left out'}; width = time under a function, callers below; hover for figures`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Verdana, sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="#fdfcf8"/>`,
    `<text x="${PAD}" y="18" font-size="15">${escapeXml(options.title ?? 'CPU profile')}</text>`,
    `<text x="${PAD}" y="34" fill="#555">${escapeXml(subtitle)}</text>`,
    ...legend, ...rects, '</svg>', '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const file = args.find((arg) => arg.endsWith('.cpuprofile'));
  if (!file) throw new Error('Usage: npx tsx scripts/flame-graph.ts <file.cpuprofile> [--out file.svg] [--title "..."] [--idle] [--min-px 1]');
  const option = (name: string) => {
    const at = args.indexOf(`--${name}`);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const out = option('out') ?? file.replace(/\.cpuprofile$/, '') + '.svg';
  const minPx = option('min-px');
  fs.writeFileSync(out, flameGraphSvg(readProfile(file), { title: option('title') ?? file, idle: args.includes('--idle'), ...(minPx ? { minPx: Number(minPx) } : {}) }));
  console.log(`wrote ${out}`);
}
