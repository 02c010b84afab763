// Package ami ingests AMI meetings into a native corpus of kind ami
// (docs/protocol.md#ami, docs/formats.md#native-corpus).
//
// # Inputs
//
// Ingest turns AMI meetings into a corpus of kind ami.
// Inputs: the NXT manual annotations, per speaker letter X in A..E,
// words/<m>.X.words.xml (<w> with starttime, endtime and punc, and the
// non-word elements vocalsound, disfmarker, gap, nonvocalsound, comment,
// pause), segments/<m>.X.segments.xml (optional; every nite:child href,
// range id(a)..id(b) or bare id(a), must resolve in the words file) and
// dialogueActs/<m>.X.dialog-act.xml with ontologies/da-types.xml (optional);
// and headset audio <audio>/<m>/audio/<m>.Headset-<n>.wav or
// <audio>/<m>.Headset-<n>.wav, headset n belonging to letter n (0=A .. 4=E).
// Any rate and channel count is read, averaged to mono and resampled to
// 16 kHz. A meeting becomes conversation strings.ToLower(<m>) with one
// channel per letter that has a words file or a headset file, in letter
// order (Conversation.Channels names them); its interaction type is
// "scenario" for ES, IS and TS meetings and "non-scenario" otherwise.
// A speaker with a words file but no headset file gets a silent channel
// and their events are dropped (reported as silent and excluded); a
// speaker with no words has a channel and no events. Channels are padded
// with silence to one length covering the audio and every event.
// Unknown elements, dangling hrefs and malformed times are errors naming
// the file, element and value; nothing is written to --out then.
//
// # Floor rules
//
// The events are derived from the timed words and vocal sounds by the AMI
// floor rules of internal/floor (floor.AMIRules, documented there);
// Report counts every derived event per meeting and in total.
package ami
