// The intake benchmarks' floor: a bare Fastify server in its own plain Node process that only
// verifies the HMAC and answers 202 (scripts/bench-webhooks.ts, scripts/thread-cpu.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { BENCH_SECRET, repoRoot } from './bench-lib.js';

/**
 * The floor: raw body, HMAC check with timingSafeEqual, 202. Nothing else. Run like the listener: a
 * fresh process each round, no NODE_OPTIONS, the same extra node flags (--cpu-prof: both profiled),
 * Fastify's default server options (keep-alive, timeouts, body limit) as the listener has them.
 */
const floorChild = `
import { createHmac, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
process.on('SIGTERM', () => process.exit(0)); // a clean exit writes the --cpu-prof profile
const app = Fastify({ logger: false });
app.register(async (scope) => {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  scope.post('/webhooks/:name', async (request, reply) => {
    const given = Buffer.from(String(request.headers['x-hub-signature-256'] ?? ''));
    const expected = Buffer.from('sha256=' + createHmac('sha256', ${JSON.stringify(BENCH_SECRET)}).update(request.body).digest('hex'));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return reply.code(401).send({ error: 'Invalid signature' });
    return reply.code(202).send({ status: 'accepted' });
  });
});
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write('URL http://127.0.0.1:' + app.server.address().port + '\\n');
`;

export function startFloor(nodeArgs: string[]): Promise<{ child: ChildProcess; url: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS; // as for the listener (startGatewayProcess)
  const child = spawn(process.execPath, [...nodeArgs, '--input-type=module', '-e', floorChild], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
      const url = /^URL (\S+)$/m.exec(out)?.[1];
      if (url) resolve({ child, url });
    });
    child.once('exit', (code) => reject(new Error(`the floor server exited (${code}) before listening`)));
  });
}

/** Stops the floor; `clean` (with --cpu-prof): by SIGTERM, so the profile is written on exit. */
export async function stopFloor(floor: { child: ChildProcess }, clean = false): Promise<void> {
  const exited = new Promise<void>((resolve) => floor.child.once('exit', () => resolve()));
  if (floor.child.exitCode === null && floor.child.signalCode === null) floor.child.kill(clean ? 'SIGTERM' : 'SIGKILL');
  await exited;
}

