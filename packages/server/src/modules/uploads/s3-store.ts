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
import { UploadDriver } from './driver.js';
import { type StoreLogger, typeOfUpload } from './uploads.js';

type S3Location = Extract<StorageLocation, { driver: 's3' }>;

/**
 * Milliseconds to connect to the store, and to wait for an answer once connected. With one retry
 * (the SDK's own), a store that is down costs a request a few seconds at most, well inside the
 * server's 10 s request timeout, before its `503`.
 */
const CONNECTION_TIMEOUT_MS = 2_000;
const REQUEST_TIMEOUT_MS = 4_000;

/** Whether the store answered that the object does not exist (not that the bucket does not). */
const isMissing = (error: unknown) => error instanceof S3ServiceException && error.name === 'NoSuchKey';

/**
 * Uploads as objects of an S3-compatible bucket (`MARKETPLACE_STORAGE_URL=s3://…`), under
 * `prefix/`. Credentials come from the standard AWS chain (`AWS_ACCESS_KEY_ID`/`…_SECRET_…`,
 * `AWS_PROFILE`, web identity, instance roles). Checksums are sent and checked only where the
 * API requires them, which every S3-compatible store understands. What an upload name may be,
 * failures as `503`s and the logged removal are `UploadDriver`'s.
 */
export class S3Store extends UploadDriver {
  readonly location: string;
  private readonly client: S3Client;

  constructor(
    private readonly where: S3Location,
    log: StoreLogger,
  ) {
    super(log);
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

  protected async write(name: string, data: Buffer): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.where.bucket,
        Key: this.key(name),
        Body: data,
        ContentLength: data.length,
        ContentType: typeOfUpload(name),
      }),
    );
  }

  protected async delete(name: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.where.bucket, Key: this.key(name) }));
  }

  protected async open(name: string): Promise<{ body: Readable; length: number } | null> {
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.where.bucket, Key: this.key(name) }),
      );
      // In Node the SDK's body is the HTTP response itself, a Readable.
      return { body: object.Body as Readable, length: object.ContentLength ?? 0 };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  protected async names(): Promise<string[]> {
    const prefix = this.where.prefix ? `${this.where.prefix}/` : '';
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.where.bucket,
          Prefix: prefix,
          ...(token && { ContinuationToken: token }),
        }),
      );
      for (const object of page.Contents ?? []) names.push(object.Key?.slice(prefix.length) ?? '');
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return names;
  }
}
