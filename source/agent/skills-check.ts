/** Checks that skill names (folders or front matter names) are installed and usable; `reason` names the first that is not. */
export type SkillsCheck = (names: string[]) => Promise<{ ok: true; value: unknown } | { ok: false; reason: string }>;

/**
 * The check jobs and webhook subscriptions make when they are written. The YAML parser behind it
 * loads on the first check, so `cron list` and a gateway whose jobs name no skill never load it.
 */
export function skillsCheck(skillsDir: string): SkillsCheck {
  return async (names) => (await import('./skills.js')).checkSkillNames(skillsDir, names);
}
