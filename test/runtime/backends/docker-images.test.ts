// A configured runtime image that is not on the Docker engine: the start says so (one warning naming the
// image and how to build it, and /readyz), a session create for it is refused with IMAGE_NOT_FOUND naming
// the image (not a 201 followed by 503 "retry" on every call), an image built after the start is found at
// the next create, and a session whose image went away since gets the same clear error on its call.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { injectApp } from '../../helpers/app.js';
import { docker, dockerEnv, dockerSkipReason, TEST_IMAGES } from '../../helpers/docker.js';

const unavailable = await dockerSkipReason('docker image tests');

/** A tag no one builds: never on the engine. */
const NEVER = 'toolgate/runtime-missing:never';

const env = (images: Record<string, string>) => ({
  ...dockerEnv(images, {
    profiles: { later: { permissions: ['read', 'write', 'execute'], image: 'later' } },
  }),
  LOG_LEVEL: 'info',
});

describe.skipIf(unavailable !== null)('runtime images missing on the Docker engine', () => {
  it('warns at start, shows in /readyz, refuses the create by name; a later build counts, a vanished image is named on the call', async () => {
    // A tag of this run only, made from the base image when the test "builds" it.
    const repo = `toolgate/runtime-later-${randomBytes(4).toString('hex')}`;
    const later = `${repo}:test`;
    const lines: string[] = [];
    const t = await injectApp(env({ base: TEST_IMAGES.base, never: NEVER, later }), {
      logger: true,
      logStream: { write: (line) => lines.push(line) },
    });
    try {
      const warnings = lines
        .map((line) => JSON.parse(line) as { level: number; msg: string; image?: string; fix?: string })
        .filter((entry) => entry.level === 40 && /is not on the Docker engine/.test(entry.msg));
      expect(warnings.map((w) => w.image).sort()).toEqual([later, NEVER].sort());
      for (const warning of warnings) expect(warning.fix).toMatch(/scripts\/build-runtime-images\.sh/);

      // Ready (the default image is there), with the missing ones named.
      const ready = await t.http.get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.checks.images).toMatchObject({ ok: true });
      expect([...ready.body.checks.images.missing].sort()).toEqual([later, NEVER].sort());
      expect(ready.body.checks.images.detail).toMatch(/build-runtime-images\.sh/);

      // Refused by name, and no session is left behind.
      const refused = await t.admin(t.http.post('/v1/sessions')).send({ profile: 'execute', image: 'never' });
      expect(refused.status).toBe(503);
      expect(refused.body.error).toMatchObject({
        code: 'IMAGE_NOT_FOUND',
        type: 'system_error',
        details: { image: NEVER, imageKey: 'never' },
      });
      expect(refused.body.error.message).toContain(NEVER);
      expect(refused.body.error.suggestion).toMatch(/build-runtime-images\.sh/);
      const fromProfile = await t.admin(t.http.post('/v1/sessions')).send({ profile: 'later' });
      expect(fromProfile.body.error?.code).toBe('IMAGE_NOT_FOUND');
      const listed = await t.admin(t.http.get('/v1/sessions'));
      expect(listed.body.sessions).toEqual([]);

      // Built after the start: the next create finds it and its runtime runs.
      await docker().getImage(TEST_IMAGES.base).tag({ repo, tag: 'test' });
      try {
        const s = await t.createSession({ profile: 'later' });
        const run = await t.call(s, 'run_command', { command: 'echo made' });
        expect(run.status).toBe(200);
        expect(run.body.data.stdout).toBe('made\n');
        const nowReady = await t.http.get('/readyz');
        expect(nowReady.body.checks.images.missing).toEqual([NEVER]);

        // A session made while the image was there, whose runtime was never started: the image goes
        // away, and its first call names the image instead of answering "retry" forever.
        const unstarted = await t.createSession({ profile: 'later' });
        await docker().getImage(later).remove();
        for (let i = 0; i < 2; i++) {
          const call = await t.call(unstarted, 'run_command', { command: 'true' });
          expect(call.status).toBe(503);
          expect(call.body.error).toMatchObject({ code: 'IMAGE_NOT_FOUND', details: { image: later } });
        }
      } finally {
        await docker()
          .getImage(later)
          .remove()
          .catch(() => undefined);
      }
    } finally {
      await t.close();
    }
  });
});
