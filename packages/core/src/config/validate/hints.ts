/** Shared hint texts. */
import { DATA_TYPE_VALUES } from '../schema';

export const KNOWN_DATATYPES_HINT =
  'set data_type to one of ' + DATA_TYPE_VALUES.filter((t) => t !== 'TYPE_INVALID').join(', ');
