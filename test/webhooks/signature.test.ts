import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signGithub, signStandard, STANDARD_TOLERANCE_MS, verifyRequest } from '../../source/webhooks/signature.js';

const body = Buffer.from('{"zen":"Keep it logically awesome."}');
const now = Date.UTC(2026, 0, 1);

describe('webhook signatures (spec 5.1)', () => {
  it('GitHub: sha256=<hex HMAC> of the raw body, any secret of a rotation list', () => {
    const expected = `sha256=${createHmac('sha256', 'new-secret').update(body).digest('hex')}`;
    expect(signGithub('new-secret', body)).toBe(expected);
    expect(verifyRequest({ 'x-hub-signature-256': expected }, body, ['old-secret', 'new-secret'], now)).toEqual({ ok: true, value: 'github' });
    expect(verifyRequest({ 'x-hub-signature-256': expected }, body, ['old-secret'], now).ok).toBe(false);
    expect(verifyRequest({ 'x-hub-signature-256': expected }, Buffer.concat([body, Buffer.from(' ')]), ['new-secret'], now).ok).toBe(false);
    expect(verifyRequest({ 'x-hub-signature-256': expected.toUpperCase() }, body, ['new-secret'], now).ok).toBe(false);
    // The digest is decoded from hex: a value that is not exactly 64 hex digits never reaches the comparison.
    for (const near of [`${expected.slice(0, -1)}g`, `${expected}00`, expected.slice(0, -2), `${expected.slice(0, -2)} 0`, expected.replace('sha256=', 'sha1=')]) {
      expect(verifyRequest({ 'x-hub-signature-256': near }, body, ['new-secret'], now)).toEqual({ ok: false, reason: 'X-Hub-Signature-256 does not match' });
    }
  });

  it('GitLab: X-Gitlab-Token compared as a plain string', () => {
    expect(verifyRequest({ 'x-gitlab-token': 'tok-1' }, body, ['tok-0', 'tok-1'], now)).toEqual({ ok: true, value: 'gitlab' });
    expect(verifyRequest({ 'x-gitlab-token': 'tok-2' }, body, ['tok-1'], now).ok).toBe(false);
    expect(verifyRequest({ 'x-gitlab-token': 'tok-1x' }, body, ['tok-1'], now).ok).toBe(false);
  });

  it('Standard Webhooks: id.timestamp.body, v1 base64 among several, whsec_ keys, 5-minute tolerance', () => {
    const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
    const ts = Math.floor(now / 1000);
    const good = signStandard(secret, 'msg_1', ts, body);
    const expectedSig = createHmac('sha256', Buffer.from('0123456789abcdef0123456789abcdef')).update(`msg_1.${ts}.${body.toString()}`).digest('base64');
    expect(good).toBe(`v1,${expectedSig}`);
    const headers = (signature: string, timestamp = ts, id = 'msg_1') => ({ 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature });
    expect(verifyRequest(headers(`v1,bm90IGl0 ${good}`), body, [secret], now)).toEqual({ ok: true, value: 'standard' });
    expect(verifyRequest(headers(good, ts, 'msg_2'), body, [secret], now).ok).toBe(false);
    const late = ts - STANDARD_TOLERANCE_MS / 1000 - 1;
    expect(verifyRequest(headers(signStandard(secret, 'msg_1', late, body), late), body, [secret], now)).toMatchObject({ ok: false, reason: expect.stringContaining('tolerance') });
    const early = ts + STANDARD_TOLERANCE_MS / 1000 + 1;
    expect(verifyRequest(headers(signStandard(secret, 'msg_1', early, body), early), body, [secret], now).ok).toBe(false);
    expect(verifyRequest({ 'webhook-signature': good }, body, [secret], now).ok).toBe(false);
    const plain = signStandard('plain-text-secret', 'msg_1', ts, body);
    expect(verifyRequest(headers(plain), body, ['plain-text-secret'], now).ok).toBe(true);
  });

  it('refuses garbage, over-long, non-ASCII, repeated and missing headers without throwing', () => {
    const secrets = ['s'];
    for (const value of ['', 'sha256=', 'garbage', 'sha256=zz', `sha256=${'a'.repeat(5000)}`, 'sha256=é', '\u0000', 'sha256=\u{1F600}']) {
      expect(verifyRequest({ 'x-hub-signature-256': value }, body, secrets, now).ok).toBe(false);
      expect(verifyRequest({ 'x-gitlab-token': value }, body, secrets, now).ok).toBe(false);
      expect(verifyRequest({ 'webhook-id': value, 'webhook-timestamp': value, 'webhook-signature': value }, body, secrets, now).ok).toBe(false);
    }
    expect(verifyRequest({ 'x-hub-signature-256': [signGithub('s', body), signGithub('s', body)] }, body, secrets, now).ok).toBe(false);
    expect(verifyRequest({}, body, secrets, now)).toMatchObject({ ok: false, reason: expect.stringContaining('no signature header') });
  });

  it('every scheme present must verify: a bad one refuses the request whatever good one it carries (issue #18 item 24)', () => {
    const secret = 'shared-secret';
    const ts = Math.floor(now / 1000);
    const goodGithub = { 'x-hub-signature-256': signGithub(secret, body) };
    const goodStandard = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': signStandard(secret, 'msg_1', ts, body) };
    const badStandard = { ...goodStandard, 'webhook-signature': signStandard('forged', 'msg_1', ts, body) };
    expect(verifyRequest({ ...goodGithub, ...badStandard }, body, [secret], now)).toEqual({ ok: false, reason: 'webhook-signature does not match' });
    expect(verifyRequest({ ...goodGithub, 'x-gitlab-token': 'wrong' }, body, [secret], now)).toEqual({ ok: false, reason: 'X-Gitlab-Token does not match' });
    expect(verifyRequest({ 'x-hub-signature-256': signGithub('forged', body), ...goodStandard }, body, [secret], now)).toEqual({ ok: false, reason: 'X-Hub-Signature-256 does not match' });
    expect(verifyRequest({ ...goodGithub, ...goodStandard }, body, [secret], now)).toEqual({ ok: true, value: 'github' });
  });
});
