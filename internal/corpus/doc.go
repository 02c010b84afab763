// Package corpus holds floorbench's native corpus format (docs/formats.md#native-corpus),
// the generator driver that writes MPTB corpora, and the TurnBench and AMI
// ingests:
//
//	<dir>/corpus.json                the manifest (Manifest)
//	<dir>/<conv>/speaker_<k>.wav     16 kHz mono PCM16, one per speaker, equal lengths
//	<dir>/<conv>/events.json         the event log (EventLog; kinds mptb, ami)
//	<dir>/<conv>/annotations.json    raw TurnBench tracks (kind turnbench, unless unlabelled)
//
// Open loads a corpus for detectors, sweeps and gold derivation; Check
// verifies one (hashes, lengths, labels against the audio); Gold derives
// the gold of a split by the rules of the corpus's kind (docs/protocol.md#gold-derivation).
//
// # Integrity
//
// The manifest records the sha256 of every file, so its own hash names
// every byte of the corpus once the files are verified against it: Verify
// and Check do so as a stream, and Verified checks bytes as they are
// uploaded to or read from a store. Every file is read through OpenFile:
// only regular files inside the corpus folder (no symbolic links, devices
// or pipes, no conversation folder linked elsewhere), and none larger than
// MaxFileSize allows for the conversation's length.
//
// # TurnBench parquet
//
// IngestTurnBench reads the shards of TurnBench's Hugging Face datasets
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
//	                         IngestTurnBenchOptions.Split (--split)
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
//
// # AMI ingest
//
// IngestAMI turns AMI meetings into a corpus of kind ami (docs/protocol.md#ami).
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
// # AMI floor rules
//
// FloorRules (defaults in DefaultFloorRules) derive MPTB events from the
// timed words and vocal sounds; words without times are dropped and
// counted. All thresholds are seconds.
//
//  1. Talk spurts: a speaker's vocalisations separated by less than
//     SpurtBridge (0.2) form one spurt, the 200 ms fill-in of Brady (1968)
//     also used by Heldner & Edlund (2010).
//  2. A spurt of vocal sounds only is NON_CONTENT. A spurt whose words
//     carry dialogue acts is a BACKCHANNEL exactly when all those acts are
//     of type Backchannel (the acts take precedence over the lexicon);
//     without acts, a spurt of at most BackchannelMaxWords (3) words, at
//     most BackchannelMaxDur (1.0) long, every word from a continuer
//     lexicon (yeah, mm-hmm, uh-huh, right, okay, ...), is a BACKCHANNEL.
//     Neither changes the floor; their floor holder is the speaker whose
//     turn (holds included) covers their start.
//  3. Spurts are taken in time order. The first floor-capable spurt opens a
//     TURN. The holder's next spurt continues the turn (their own coughs
//     and laughs are NON_CONTENT and do not); a pause of at least MinHold
//     (0.2) before it is a hold (after a question when the word before it
//     is followed by "?"). A holder silent for more than MaxHold (2.0)
//     has let the floor go: the turn ends yielded at its last word.
//  4. Another speaker's floor-capable spurt that starts while the holder is
//     silent takes the floor after a gap: the turn ends yielded.
//  5. One that starts while the holder speaks (overlap) is a successful
//     INTERRUPTION when the holder's spurt stops within InterruptWindow
//     (1.5; the generator's holders talk on 0.05 to 1.5 s over a claim) of
//     its onset and the intruder talks on at least MinOutlast (0.3) after
//     that: the holder's turn ends interrupted there, the INTERRUPTION spans
//     onset to that stop, and the intruder's TURN starts at the stop.
//  6. If the holder stops later than the window and the intruder talks on,
//     the holder finished their turn (yielded); the overlap is an
//     INTERRUPTION_ATTEMPT (excluded from INT) and the intruder's turn
//     starts at the holder's stop.
//  7. Otherwise the holder keeps the floor: the spurt is a
//     NON_FLOOR_TAKING_INTERRUPTION with at most InterjectionMaxWords (3)
//     words, else an INTERRUPTION_ATTEMPT. A spurt that started before the
//     current turn (a third voice in a multi-way overlap) lands here too.
//
// FloorBefore and FloorAfter follow the generator's conventions: a turn
// after a gap has floor_before 0, an interrupter's turn its own speaker,
// an interrupted turn's floor_after the interrupter. AMIReport counts
// every derived event per meeting and in total.
package corpus
