import type * as AwsS3 from '@aws-sdk/client-s3';

let loaded: typeof AwsS3 | undefined;

/**
 * The AWS SDK's S3 package, loaded the first time an S3 store, S3 records or an S3 client is made. Loading it takes
 * about 0.17 s of CPU, which every `tollgate` command and every worker and gateway start on a folder store would
 * otherwise pay for nothing.
 */
export function awsS3(): typeof AwsS3 {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('@aws-sdk/client-s3') as typeof AwsS3;
  return loaded;
}

/** The HTTP status of an error S3 answered with; undefined for any other error (a dropped connection, a bug). */
export function s3StatusOf(error: unknown): number | undefined {
  // An error S3 answered with comes from the loaded package: nothing to load for any other.
  if (loaded === undefined) return undefined;
  return error instanceof loaded.S3ServiceException ? error.$metadata.httpStatusCode : undefined;
}
