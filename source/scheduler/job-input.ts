import fs from 'node:fs';
import path from 'node:path';
import { slugify } from '../infra/slug.js';
import type { CatchUpPolicy } from '../store/jobs.js';
import { parseSchedule, type Schedule } from './schedule.js';

/** A job as someone asked for it (CLI flags, tool arguments, console form). */
export interface JobRequest {
  schedule: string;
  prompt: string;
  name?: string;
  deliver?: string;
  skills?: string[];
  script?: string;
  catchUp?: string;
}

/** Who asks decides the defaults and how far a script path may reach. */
export interface JobRequestContext {
  /** `cli`, `console`, or the origin of the agent run that called the cronjob tool. */
  origin: string;
  /** `local` for the CLI, `origin` for the console and the agent. */
  defaultDeliver: string;
  /** Relative script paths resolve here (the CLI: its working directory). */
  baseDir: string;
  /** When set, the script must resolve inside this folder (the agent's tool: $SWITCHBOARD_HOME/scripts). */
  scriptsRoot?: string;
  /** Checks `deliver` against the configured platforms; without it only the shape is checked. */
  checkDeliver?: (target: string) => Checked<unknown>;
}

export interface CheckedJob {
  name: string;
  schedule: Schedule;
  prompt: string;
  deliver: string;
  origin: string;
  skills: string[];
  script: string | null;
  catchUp: CatchUpPolicy;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

const NAME_MAX = 60;
const skillName = /^[A-Za-z0-9._-]{1,64}$/;
const deliverTarget = /^[a-z][a-z0-9_]*(:[^\s]+)?$/;

/** Checks a job request; every problem is a reason naming the field and what is accepted. */
export function checkJobRequest(request: JobRequest, context: JobRequestContext): Checked<CheckedJob> {
  const schedule = parseSchedule(request.schedule ?? '');
  if (!schedule.ok) return schedule;
  const prompt = (request.prompt ?? '').trim();
  if (prompt === '') return { ok: false, reason: 'the prompt is empty: say what the agent should do at each run' };
  const given = (request.name ?? '').trim();
  const name = given ? slugify(given) : defaultName(prompt);
  if (name === '') return { ok: false, reason: `the name "${given}" has no letters or digits: job names are URL-safe slugs (lower-case letters, digits, "_" and "-")` };
  const deliver = (request.deliver ?? '').trim() || context.defaultDeliver;
  if (!deliverTarget.test(deliver)) return { ok: false, reason: `deliver "${deliver}" is not a target: use log, local, origin, or <kind>:<address> such as telegram:123` };
  const target = context.checkDeliver?.(deliver);
  if (target && !target.ok) return { ok: false, reason: `deliver "${deliver}": ${target.reason}` };
  const skills = (request.skills ?? []).map((skill) => skill.trim()).filter(Boolean);
  const badSkill = skills.find((skill) => !skillName.test(skill));
  if (badSkill !== undefined) return { ok: false, reason: `skill "${badSkill}" is not a skill name (letters, digits, ".", "_", "-")` };
  const catchUp = (request.catchUp ?? 'once').trim();
  if (catchUp !== 'once' && catchUp !== 'skip') return { ok: false, reason: `catch_up "${catchUp}" is not once or skip` };
  let script: string | null = null;
  if (request.script !== undefined && request.script.trim() !== '') {
    const checked = checkScript(request.script.trim(), context);
    if (!checked.ok) return checked;
    script = checked.value;
  }
  return { ok: true, value: { name, schedule: schedule.value, prompt, deliver, origin: context.origin, skills: [...new Set(skills)], script, catchUp } };
}

/** The start of the prompt's first line as a slug, cut at a word boundary ("job" when nothing is left). */
export function defaultName(prompt: string): string {
  return slugify(prompt.split('\n')[0]!, NAME_MAX) || 'job';
}

/** An executable file; for the agent, one that resolves (symlinks followed) inside the scripts folder. */
export function checkScript(script: string, context: Pick<JobRequestContext, 'baseDir' | 'scriptsRoot'>): Checked<string> {
  const base = context.scriptsRoot ?? context.baseDir;
  const candidate = path.resolve(base, script);
  let real: string;
  try {
    real = fs.realpathSync(candidate);
  } catch {
    const where = context.scriptsRoot ? ` (scripts for agent-created jobs live in ${context.scriptsRoot})` : '';
    return { ok: false, reason: `script ${candidate} does not exist${where}` };
  }
  if (context.scriptsRoot) {
    let root: string;
    try {
      root = fs.realpathSync(context.scriptsRoot);
    } catch {
      return { ok: false, reason: `the scripts folder ${context.scriptsRoot} does not exist: an operator must put the script there first` };
    }
    if (!real.startsWith(`${root}${path.sep}`)) return { ok: false, reason: `script ${script} resolves to ${real}, outside ${root}: the agent may only schedule scripts from that folder` };
  }
  const stat = fs.statSync(real);
  if (!stat.isFile()) return { ok: false, reason: `script ${real} is not a file` };
  try {
    fs.accessSync(real, fs.constants.X_OK);
  } catch {
    return { ok: false, reason: `script ${real} is not executable: chmod +x it (it runs without a shell, so it needs a #! line)` };
  }
  return { ok: true, value: real };
}
