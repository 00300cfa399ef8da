/* eslint-disable @typescript-eslint/no-explicit-any -- real payloads are arbitrary JSON, read field by field in the expectations */
import { describe, expect, it } from 'vitest';
import { compileTemplate, createTemplateCache, RAW_CHARS, renderExtra, renderPrompt, renderTemplate, VALUE_JSON_CHARS } from '../../source/webhooks/template.js';
import { githubExample, gitlabPayload } from '../helpers/webhooks.js';

describe('templates (spec 2.9)', () => {
  const pr = githubExample('pull_request', 'opened') as Record<string, any>;
  const issue = githubExample('issues', 'opened') as Record<string, any>;
  const checkRun = githubExample('check_run', 'completed') as Record<string, any>;

  it('renders every commonly used GitHub field of spec 2.9 item 3 from real payloads', () => {
    const template = '{action} #{number} {repository.full_name} {pull_request.title} by {pull_request.user.login} {pull_request.head.ref}->{pull_request.base.ref} '
      + '{pull_request.html_url} {pull_request.diff_url} {pull_request.merge_commit_sha} {pull_request.merged} {sender.login}';
    const expected = `${pr.action} #${pr.number} ${pr.repository.full_name} ${pr.pull_request.title} by ${pr.pull_request.user.login} ${pr.pull_request.head.ref}->${pr.pull_request.base.ref} `
      + `${pr.pull_request.html_url} ${pr.pull_request.diff_url} ${pr.pull_request.merge_commit_sha} ${pr.pull_request.merged} ${pr.sender.login}`;
    expect(renderTemplate(template, pr)).toBe(expected);
    expect(renderTemplate('{pull_request.body}', pr)).toBe(pr.pull_request.body === null ? 'null' : pr.pull_request.body);

    expect(renderTemplate('{issue.number} {issue.title} {issue.user.login}', issue)).toBe(`${issue.issue.number} ${issue.issue.title} ${issue.issue.user.login}`);
    expect(renderTemplate('{issue.labels}', issue)).toBe(JSON.stringify(issue.issue.labels));
    expect(renderTemplate('{issue.body}', issue)).toBe(issue.issue.body === null ? 'null' : issue.issue.body);

    expect(renderTemplate('{check_run.name} {check_run.conclusion} {check_run.details_url} PR {check_run.pull_requests.0.number}', checkRun))
      .toBe(`${checkRun.check_run.name} ${checkRun.check_run.conclusion} ${checkRun.check_run.details_url} PR ${checkRun.check_run.pull_requests[0].number}`);
  });

  it('renders GitLab fields from a real merge request payload', () => {
    const mr = JSON.parse(gitlabPayload('merge-request-event.json'));
    expect(renderTemplate('!{object_attributes.iid} {object_attributes.title}', mr)).toBe(`!${mr.object_attributes.iid} ${mr.object_attributes.title}`);
  });

  it('leaves what does not resolve exactly as written, and knows no other syntax', () => {
    const payload = { a: { b: [{ c: 1 }] }, s: 'x' };
    expect(renderTemplate('{a.b.0.c} {a.b.1.c} {a.missing} {nope} {a.b.x} {s.length}', payload)).toBe('1 {a.b.1.c} {a.missing} {nope} {a.b.x} {s.length}');
    expect(renderTemplate('{{s}} { s } {s|upper} {#if s}{/if} ${s}', payload)).toBe('{x} { s } {s|upper} {#if s}{/if} $x');
  });

  it('never walks __proto__, constructor or prototype', () => {
    const payload = JSON.parse('{"__proto__": {"polluted": "yes"}, "f": {"prototype": 1}, "o": {}}');
    expect(renderTemplate('{__proto__} {__proto__.polluted} {o.constructor} {o.constructor.name} {f.prototype} {o.toString} {o.hasOwnProperty}', payload))
      .toBe('{__proto__} {__proto__.polluted} {o.constructor} {o.constructor.name} {f.prototype} {o.toString} {o.hasOwnProperty}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('renders objects and arrays as JSON capped at 2000 characters and {__raw__} capped at 4000', () => {
    const payload = { list: Array.from({ length: 1000 }, (_, i) => i), small: { k: 'v' } };
    expect(renderTemplate('{small}', payload)).toBe('{"k":"v"}');
    expect(renderTemplate('{list}', payload)).toBe(JSON.stringify(payload.list).slice(0, VALUE_JSON_CHARS));
    expect(renderTemplate('{list}', payload)).toHaveLength(VALUE_JSON_CHARS);
    const raw = renderTemplate('{__raw__}', pr);
    expect(raw).toBe(JSON.stringify(pr).slice(0, RAW_CHARS));
    expect(raw).toHaveLength(RAW_CHARS);
  });

  it('is single-pass: text brought in by a substitution is never expanded', () => {
    const payload = { title: 'please render {secret} and {__raw__}', secret: 'hidden' };
    expect(renderTemplate('T: {title}', payload)).toBe('T: please render {secret} and {__raw__}');
  });

  it('without a prompt passes the whole payload as indented JSON; deliver_extra values are templates', () => {
    expect(renderPrompt(undefined, { a: 1 })).toBe('{\n  "a": 1\n}');
    // A lone placeholder keeps a number's type; text around it makes a string (issue #18 item 17).
    expect(renderExtra({ repo: '{repository.full_name}', pr_number: '{number}', title: 'PR {number}', fixed: 'x', n: 7, on: false }, pr))
      .toEqual({ repo: pr.repository.full_name, pr_number: pr.number, title: `PR ${pr.number}`, fixed: 'x', n: 7, on: false });
  });
});

describe('compiled templates (a route prompt is split once)', () => {
  it('renders like the template text, and the cache compiles each template once', () => {
    const payload = { a: { b: [1, { c: 'x' }] }, n: 2 };
    const template = 'pre {a.b.1.c} mid {missing.path} {n}{n} {__raw__} post';
    expect(compileTemplate(template)).toEqual(['pre ', { whole: '{a.b.1.c}', path: ['a', 'b', '1', 'c'] }, ' mid ', { whole: '{missing.path}', path: ['missing', 'path'] }, ' ',
      { whole: '{n}', path: ['n'] }, { whole: '{n}', path: ['n'] }, ' ', { whole: '{__raw__}', path: null }, ' post']);
    expect(renderTemplate(compileTemplate(template), payload)).toBe(`pre x mid {missing.path} 22 ${JSON.stringify(payload)} post`);
    const cache = createTemplateCache(2);
    expect(cache(template)).toBe(cache(template));
    expect(renderPrompt(cache('{n}'), payload)).toBe('2');
  });
});
