/**
 * The KServe front end's shorthand for its most common refusal: input the client got wrong
 * (INVALID_ARG, HTTP 400). Every other error is an InferError from core's vocabulary.
 */
import { errors, type InferError } from '@inferscope/core';

export const invalid = (message: string): InferError => errors.INVALID(message);
