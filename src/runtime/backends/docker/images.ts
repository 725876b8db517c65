// Which of the operator's runtime images (runtimeBackend.images) the Docker engine has. A session whose
// image is missing could never start a runtime: its create is refused, naming the image, instead of a 201
// followed by a 503 on every call. Asked again at each create (an image built after the start counts);
// an image found is believed for a few seconds, so a burst of creates costs one `docker image inspect`.
import type Docker from 'dockerode';
import type { DockerBackendConfig } from '../../../config.js';
import { toolgateError, type ToolgateError } from '../../../lib/errors.js';

/** How long an image found on the engine is taken to be there without asking again. */
const PRESENT_FOR_MS = 10_000;

/** Where the operator learns to build the images. */
export const BUILD_HINT = 'build it with scripts/build-runtime-images.sh (docker/runtime-images/README.md)';

export interface MissingImage {
  readonly key: string;
  readonly image: string;
}

/** The error of a session whose runtime image is not on the engine: an operator's fault, named. */
export const imageNotFound = ({ key, image }: MissingImage): ToolgateError =>
  toolgateError(
    'IMAGE_NOT_FOUND',
    `The runtime image ${image} (image key "${key}") is not on the Docker engine`,
    {
      suggestion: `Ask the operator to ${BUILD_HINT}, or create the session with another image; retrying does not help until then.`,
      details: { image, imageKey: key },
    },
  );

export class RuntimeImages {
  /** Image reference → until when it is believed present. */
  private readonly presentUntil = new Map<string, number>();

  constructor(
    private readonly docker: Docker,
    private readonly config: DockerBackendConfig,
  ) {}

  /** Whether the engine has `image` (an error other than "no such image" is the engine's, and thrown). */
  private async present(image: string): Promise<boolean> {
    if ((this.presentUntil.get(image) ?? 0) > Date.now()) return true;
    try {
      await this.docker.getImage(image).inspect();
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode !== 404) throw err;
      this.presentUntil.delete(image);
      return false;
    }
    this.presentUntil.set(image, Date.now() + PRESENT_FOR_MS);
    return true;
  }

  /** The configured images the engine lacks now, in the table's order. */
  async missing(): Promise<MissingImage[]> {
    const entries = Object.entries(this.config.images).map(([key, image]) => ({ key, image }));
    const found = await Promise.all(entries.map(({ image }) => this.present(image)));
    return entries.filter((_, i) => !found[i]);
  }

  /** Throws IMAGE_NOT_FOUND when the image of `key` (undefined: the default) is not on the engine. */
  async require(key: string | undefined): Promise<void> {
    const imageKey = key ?? this.config.defaultImage;
    const image = this.config.images[imageKey];
    if (image !== undefined && !(await this.present(image))) throw imageNotFound({ key: imageKey, image });
  }

  /** The error for `key` once the engine said "no such image" (a create): forgets it was there. */
  gone(key: string | undefined): ToolgateError {
    const imageKey = key ?? this.config.defaultImage;
    const image = this.config.images[imageKey] ?? imageKey;
    this.presentUntil.delete(image);
    return imageNotFound({ key: imageKey, image });
  }
}
