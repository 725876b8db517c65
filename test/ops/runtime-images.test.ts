// What the runtime images hold (docker/runtime-images/, built by scripts/build-runtime-images.sh): every
// image of images.json has curl, git, ca-certificates and make, the tools agents expect in a toolchain
// image. Docker-gated; TOOLGATE_RUNTIME_IMAGE_TAG checks images built under another tag (the script's
// variable).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dockerUnavailable } from '../helpers/docker.js';
import { REPO_ROOT } from './child-server.js';

const table = JSON.parse(readFileSync(path.join(REPO_ROOT, 'docker/runtime-images/images.json'), 'utf8')) as {
  runtimeBackend: { images: Record<string, string> };
};
const tag = process.env.TOOLGATE_RUNTIME_IMAGE_TAG;
const images = Object.entries(table.runtimeBackend.images).map(
  ([key, image]) => [key, tag ? image.replace(/:[^:/]+$/, `:${tag}`) : image] as const,
);

const otherPass = process.env.TOOLGATE_TEST_SANDBOX !== undefined;
const unavailable = otherPass
  ? `they run once, in the default project (this pass is ${process.env.TOOLGATE_TEST_SANDBOX})`
  : await dockerUnavailable();
if (unavailable) console.log(`runtime image contents skipped: ${unavailable}`);

/** Runs `script` with sh in `image` as its default (non-root) user; stdout, stderr and status. */
const inImage = (image: string, script: string) =>
  spawnSync('docker', ['run', '--rm', '--network', 'none', image, 'sh', '-c', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });

describe.skipIf(unavailable !== null)('runtime images', () => {
  it.each(images)('%s (%s) has curl, git, make and the CA certificates', (_key, image) => {
    const result = inImage(
      image,
      'for tool in curl git make; do command -v "$tool" || echo "missing $tool"; done; ' +
        'test -s /etc/ssl/certs/ca-certificates.crt || echo "missing ca-certificates"; ' +
        'curl --version | head -1; git --version; make --version | head -1',
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).not.toMatch(/missing/);
    expect(result.stdout).toMatch(/^curl \d/m);
    expect(result.stdout).toMatch(/^git version \d/m);
    expect(result.stdout).toMatch(/^GNU Make \d/m);
    expect(result.status).toBe(0);
  });
});
