// Package jsonio reads and writes the JSON files floorbench exchanges with
// other tools, with the strictness and byte-compatibility those exchanges
// need and encoding/json does not give:
//
//   - objects keep their key order, and duplicate keys are an error;
//   - NaN, Infinity and -Infinity (which Python's json module writes by
//     default) are read as numbers, so a validator can reject them with the
//     conversation, speaker and index they occur at instead of a byte offset;
//   - every value remembers its line and column for error messages;
//   - PyFloat, PyNumber and PyString format numbers and strings as Python's
//     json.dumps writes them (floats as repr, ASCII-escaped strings), so
//     artifacts such as TurnBench's gold export are reproduced byte for byte.
package jsonio
