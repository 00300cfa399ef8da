import { validateDefinition } from '../../config/validate.js';
import type { Operations } from '../../operations/index.js';
import type { JobRow } from '../../store/jobs.js';
import type { EditForm } from './edit-form.js';
import { definitionFields, issuesByField } from './schema-fields.js';

/** The field a job command's reason is about (its reasons name the field: "invalid schedule", "deliver ...", "skill ..."), else the form. */
function fieldNamed(reason: string): string {
  const match = /\b(schedule|prompt|name|deliver|skill|script|catch_up)\b/.exec(reason);
  return match ? (match[1] === 'skill' ? 'skills' : match[1]!) : '';
}

/**
 * `e` on a job: the keys of `$defs/job`. Jobs live in the store, so saving goes through the core
 * job operations (edit, then pause or resume), never config.json.
 */
export function jobForm(ops: Operations, job: JobRow): EditForm {
  const entry = { schedule: job.schedule, prompt: job.prompt, name: job.name, deliver: job.deliver, skills: job.skills, script: job.script ?? undefined, enabled: job.enabled, catch_up: job.catchUp };
  const fields = definitionFields('job', entry).map((field) => (field.key === 'schedule' || field.key === 'prompt' ? { ...field, required: true } : field));
  return {
    title: `Edit job ${job.name} (${job.id}) · empty = default`,
    fields,
    async save(values) {
      const defined = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
      const issues = validateDefinition('job', defined);
      if (issues.length > 0) return { ok: false, errors: issuesByField(issues, [], fields) };
      // Empty fields clear: the name falls back to the prompt's start, the target to the console, no skills, no script.
      let saved: JobRow;
      try {
        saved = (await ops.jobs.edit({
          job: job.id, schedule: String(values.schedule), prompt: String(values.prompt), name: (values.name as string | undefined) ?? '', deliver: (values.deliver as string | undefined) ?? '',
          skills: (values.skills as string[] | undefined) ?? [], script: (values.script as string | undefined) ?? '', catchUp: (values.catch_up as string | undefined) ?? 'once', origin: 'console',
        })).job;
      } catch (error) {
        return { ok: false, errors: { [fieldNamed((error as Error).message)]: `Not saved: ${(error as Error).message}` } };
      }
      const enabled = values.enabled ?? true;
      if (enabled !== saved.enabled) {
        try {
          saved = (await (enabled ? ops.jobs.resume({ job: job.id }) : ops.jobs.pause({ job: job.id }))).job;
        } catch (error) {
          return { ok: false, errors: { enabled: (error as Error).message } };
        }
      }
      return { ok: true, notice: `Saved job ${saved.name} (${saved.id}): ${saved.schedule}, deliver ${saved.deliver}, ${saved.enabled ? 'enabled' : 'paused'}.` };
    },
  };
}
