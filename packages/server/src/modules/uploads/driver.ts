import { DependencyUnavailableError } from '../../http/errors.js';
import {
  isUploadName,
  newUploadName,
  type StoredUpload,
  type StoreLogger,
  typeOfUpload,
  type UploadedFile,
  type UploadStore,
} from './uploads.js';

/** The `503` of a store that could not be reached for `action`. */
const unavailable = (action: string, error: unknown) =>
  new DependencyUnavailableError(`upload store unavailable: could not ${action}`, { cause: error });

/**
 * An upload store made of a driver's four plain operations on objects (`DirectoryStore`,
 * `S3Store`). The rules of {@link UploadStore} are kept here, once for every driver: which names
 * are uploads (anything else is refused, never read, never listed), the fresh name of a saved
 * image, the type an upload is served with, a failure as a `503`, and the removal that only logs.
 */
export abstract class UploadDriver implements UploadStore {
  abstract readonly location: string;

  constructor(private readonly log: StoreLogger) {}

  /** Writes bytes under an upload name; `fresh` when the name was just made (nothing has it yet). */
  protected abstract write(name: string, data: Buffer, fresh: boolean): Promise<void>;
  /** Deletes an object; one that is not there is no error. */
  protected abstract delete(name: string): Promise<void>;
  /** An object's bytes and their length, or null when there is no such object. */
  protected abstract open(name: string): Promise<Omit<StoredUpload, 'type'> | null>;
  /** The names of the store's objects, uploads or not. */
  protected abstract names(): Promise<string[]>;

  async save(file: UploadedFile): Promise<string> {
    const name = newUploadName(file.data);
    await this.attempt('save an upload', () => this.write(name, file.data, true));
    return name;
  }

  async put(name: string, data: Buffer): Promise<void> {
    if (!isUploadName(name)) throw new Error(`not an upload name: ${name}`);
    await this.attempt('save an upload', () => this.write(name, data, false));
  }

  async remove(name: string | null | undefined): Promise<void> {
    if (!name || !isUploadName(name)) return;
    try {
      await this.delete(name);
    } catch (error) {
      this.log.warn({ err: error, upload: name }, 'could not remove an upload; it is left unreferenced');
    }
  }

  async read(name: string): Promise<StoredUpload | null> {
    if (!isUploadName(name)) return null;
    const found = await this.attempt('read an upload', () => this.open(name));
    return found && { body: found.body, type: typeOfUpload(name), length: found.length };
  }

  async list(): Promise<string[]> {
    return (await this.attempt('list the uploads', () => this.names())).filter(isUploadName).sort();
  }

  private async attempt<T>(action: string, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw unavailable(action, error);
    }
  }
}
