import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { StorageLocation } from '../../config.js';
import {
  isUploadName,
  newUploadName,
  type StoredUpload,
  type StoreLogger,
  storeUnavailable,
  typeOfUpload,
  type UploadedFile,
  type UploadStore,
} from './uploads.js';

type S3Location = Extract<StorageLocation, { driver: 's3' }>;

/**
 * Milliseconds to connect to the store, and to wait for an answer once connected. With one retry
 * (the SDK's own), a store that is down costs a request a few seconds at most, well inside the
 * server's 10 s request timeout, before its `503`.
 */
const CONNECTION_TIMEOUT_MS = 2_000;
const REQUEST_TIMEOUT_MS = 4_000;

const failed = storeUnavailable;

/** Whether the store answered that the object does not exist (not that the bucket does not). */
const isMissing = (error: unknown) => error instanceof S3ServiceException && error.name === 'NoSuchKey';

/**
 * Uploads as objects of an S3-compatible bucket (`MARKETPLACE_STORAGE_URL=s3://…`), under
 * `prefix/`. Credentials come from the standard AWS chain (`AWS_ACCESS_KEY_ID`/`…_SECRET_…`,
 * `AWS_PROFILE`, web identity, instance roles). Checksums are sent and checked only where the
 * API requires them, which every S3-compatible store understands.
 */
export class S3Store implements UploadStore {
  readonly location: string;
  private readonly client: S3Client;

  constructor(
    private readonly where: S3Location,
    private readonly log: StoreLogger,
  ) {
    this.location = `s3://${where.bucket}${where.prefix ? `/${where.prefix}` : ''}`;
    this.client = new S3Client({
      region: where.region,
      ...(where.endpoint && { endpoint: where.endpoint }),
      forcePathStyle: where.forcePathStyle,
      maxAttempts: 2,
      requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private key(name: string) {
    return this.where.prefix ? `${this.where.prefix}/${name}` : name;
  }

  async save(file: UploadedFile): Promise<string> {
    const name = newUploadName(file.data);
    await this.put(name, file.data);
    return name;
  }

  async put(name: string, data: Buffer): Promise<void> {
    if (!isUploadName(name)) throw new Error(`not an upload name: ${name}`);
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.where.bucket,
          Key: this.key(name),
          Body: data,
          ContentLength: data.length,
          ContentType: typeOfUpload(name),
        }),
      );
    } catch (error) {
      throw failed('save an upload', error);
    }
  }

  async remove(name: string | null | undefined): Promise<void> {
    if (!name || !isUploadName(name)) return;
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.where.bucket, Key: this.key(name) }));
    } catch (error) {
      this.log.warn({ err: error, upload: name }, 'could not remove an upload; it is left unreferenced');
    }
  }

  async read(name: string): Promise<StoredUpload | null> {
    if (!isUploadName(name)) return null;
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.where.bucket, Key: this.key(name) }),
      );
      return {
        // In Node the SDK's body is the HTTP response itself, a Readable.
        body: object.Body as Readable,
        type: typeOfUpload(name),
        length: object.ContentLength ?? 0,
      };
    } catch (error) {
      if (isMissing(error)) return null;
      throw failed('read an upload', error);
    }
  }

  async list(): Promise<string[]> {
    const prefix = this.where.prefix ? `${this.where.prefix}/` : '';
    const names: string[] = [];
    let token: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new ListObjectsV2Command({
            Bucket: this.where.bucket,
            Prefix: prefix,
            ...(token && { ContinuationToken: token }),
          }),
        );
        for (const object of page.Contents ?? []) {
          const name = object.Key?.slice(prefix.length) ?? '';
          if (isUploadName(name)) names.push(name);
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    } catch (error) {
      throw failed('list the uploads', error);
    }
    return names.sort();
  }
}
