// Package turnbench ingests TurnBench (docs/protocol.md#turnbench) into a
// native corpus of kind turnbench (docs/formats.md#native-corpus).
//
// # Parquet
//
// Ingest reads the shards of TurnBench's Hugging Face datasets
// (turn-benchmark-dev, turn-benchmark-test): one row per conversation.
// Columns are found by name; others (such as speaker_{1,2}_audio_preview)
// are ignored and never read. Accepted:
//
//	conversation_id          string, required; kept as is (submissions name it), so it
//	                         must be a valid folder name: lower-case letters, digits,
//	                         - and _, at most 64 (anything else, "../x" included, is an
//	                         error naming the value; there is no silent mapping)
//	speaker_1_audio,         Hugging Face Audio: struct{bytes binary, path string}, or
//	speaker_2_audio          plain binary; the bytes are a FLAC or PCM WAV file (told by
//	                         their first bytes), one channel each
//	audio                    instead of the two above: one struct or binary column holding
//	                         a two-channel file, channel 1 = speaker_1
//	speaker_{1,2}_annotation_{a,b,c}
//	                         list<struct{start_s double, end_s double, label string,
//	                         text string}>; float instead of double is widened exactly;
//	                         start/end are accepted for start_s/end_s; text is optional
//	metadata                 optional struct (or a string holding a JSON object) whose
//	                         conversation_type string becomes the interaction type
//	                         ("unknown" without one)
//	split                    optional string, dev or test; without it the rows take
//	                         Options.Split (--split)
//
// Audio at another rate is resampled to 16 kHz; channels whose lengths
// differ by at most a second are padded with silence to the longer one.
// A row whose six annotation columns are all null or empty, or a file
// without them (the public test release blanks them), is ingested as an
// unlabelled conversation; a row with some tracks null and others filled is
// an error. Segment times must be finite, inside [0, duration] (10 ms of
// slack at the end) with end >= start. Every error names the file, the row,
// the conversation, the column and field, and the value.
//
// Rows are read one at a time (one conversation's audio in memory), the
// corpus is written into a temporary folder beside the output and renamed
// into place at the end, conversations are sorted by id, and the manifest
// records each input by base name and sha256, so the same input gives
// byte-identical output and a failure leaves nothing behind.
package turnbench
