// A presigned GET of one object (Signature Version 4, at most 7 days; docs/reports.md, "A link to
// the report"): whoever has the URL reads that object until it expires. The URL names the access
// key id that signed it (X-Amz-Credential), never the secret. Signed locally with the client's
// credentials: no request is made. The signer is loaded only when a link is asked for.
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { errorMessage } from '../util/errors.js';

export async function presignGet(
  client: S3Client,
  bucket: string,
  fullKey: string,
  expiresInSeconds: number,
  now: Date,
): Promise<string> {
  const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
  try {
    return await getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: fullKey }), {
      expiresIn: expiresInSeconds,
      signingDate: now,
    });
  } catch (err) {
    // Signing fails only without usable credentials: the same fix as for any S3 call.
    throw new Error(
      `cannot sign a link to s3://${bucket}/${fullKey}: ${errorMessage(err)}; check the S3 credentials (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or the instance role)`,
      { cause: err },
    );
  }
}
