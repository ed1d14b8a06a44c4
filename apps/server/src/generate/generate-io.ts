/**
 * A generate request's tensors in and out of the iterative scheduler (names: generative-model.ts).
 *
 * In: `text_input`'s UTF-8 bytes are the prompt's token ids (byte-level model), `max_tokens` the tokens to
 * generate (default: what max_seq_len leaves after the prompt, as vLLM's max_tokens defaults to the
 * model's length), `stream` whether each token is its own response (TensorRT-LLM's input; default: true,
 * except where the front end takes one answer, HTTP `generate`).
 * Out: `text_output` carries text that is always valid UTF-8: a byte that starts a character is held
 * until the character is complete (an empty text meanwhile), so a streamed client can concatenate the
 * responses and a JSON front end can send each one.
 */
import { errors, type InferPayload, type Tensor } from '@inferscope/core';
import { GENERATE_IO } from './generative-model';

export interface GenerateAsk {
  prompt: number[];
  maxTokens: number;
  /** true: one response per token; false: one response with the whole text */
  stream: boolean | undefined;
}

function input(payload: InferPayload, name: string): Tensor | undefined {
  return payload.inputs.find((t) => t.name === name);
}

/** The request's ask, or an INVALID_ARG error naming what is wrong (the request is answered with it). */
export function readGenerateAsk(payload: InferPayload, model: string, maxSeqLen: number): GenerateAsk {
  const text = input(payload, GENERATE_IO.text)?.data;
  const bytes = Array.isArray(text) && text.length === 1 ? text[0]! : undefined;
  if (!bytes) throw errors.INVALID(`model '${model}' takes one prompt in '${GENERATE_IO.text}'`);
  if (bytes.length === 0) throw errors.INVALID(`'${GENERATE_IO.text}' of model '${model}' is empty: a prompt needs at least one byte`);
  if (bytes.length >= maxSeqLen) {
    throw errors.INVALID(`the prompt of ${bytes.length} tokens leaves no room to generate in model '${model}' (max_seq_len ${maxSeqLen})`);
  }
  const room = maxSeqLen - bytes.length;
  const asked = input(payload, GENERATE_IO.maxTokens)?.data as Int32Array | undefined;
  const maxTokens = asked && asked.length > 0 ? asked[0]! : room;
  if (!(maxTokens >= 1) || maxTokens > room) {
    throw errors.INVALID(`'${GENERATE_IO.maxTokens}' of model '${model}' must be between 1 and ${room} for this prompt of ${bytes.length} tokens (max_seq_len ${maxSeqLen}), got ${maxTokens}`);
  }
  const flag = input(payload, GENERATE_IO.stream)?.data as Uint8Array | undefined;
  return { prompt: [...bytes], maxTokens, stream: flag && flag.length > 0 ? flag[0] !== 0 : undefined };
}

/** One text_output tensor (shape [1]: the config's dims). */
export function textOutput(text: string): Tensor[] {
  return [{ name: GENERATE_IO.output, datatype: 'BYTES', shape: [1], data: [new TextEncoder().encode(text)] }];
}

/** Token ids -> text, one token at a time, holding an incomplete character's bytes (see the header). */
export class ByteText {
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });
  /** the text the next token completes (possibly '') */
  push(token: number): string {
    return token < 256 ? this.decoder.decode(Uint8Array.of(token), { stream: true }) : '';
  }
  /** whatever is held, at the end (an incomplete character becomes U+FFFD) */
  end(): string {
    return this.decoder.decode();
  }
}
