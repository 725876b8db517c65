// Call ids: every tool call, transfer, batch turn and operator switch gets one (`call_` + 96 random bits),
// so audit rows, traces and answers can name it.
import { randomBytes } from 'node:crypto';

export const newCallId = (): string => `call_${randomBytes(12).toString('base64url')}`;
