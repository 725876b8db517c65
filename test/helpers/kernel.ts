// Whether python3 here can run a Jupyter kernel with charts (the kernel tests' requirement on bwrap and
// the unisolated runtime; the docker project's python image has it). Under TOOLGATE_TEST_REQUIRE_ALL
// (.ci/run) a missing one fails the file instead of skipping it.
import { spawnSync } from 'node:child_process';

export function kernelHostMissing(what: string): boolean {
  const present =
    process.env.TOOLGATE_TEST_SANDBOX === 'docker' ||
    spawnSync('/usr/bin/python3', ['-c', 'import ipykernel, jupyter_client, matplotlib'], { stdio: 'ignore' })
      .status === 0;
  if (present) return false;
  console.warn(`skipped ${what}: needs python3-ipykernel, python3-jupyter-client and python3-matplotlib`);
  if (process.env.TOOLGATE_TEST_REQUIRE_ALL === '1')
    throw new Error(`TOOLGATE_TEST_REQUIRE_ALL=1: ${what} need python3-ipykernel and matplotlib`);
  return true;
}
