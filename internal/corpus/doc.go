// Package corpus holds floorbench's native corpus format (docs/formats.md#native-corpus)
// and the generator driver that writes MPTB corpora:
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
// Corpora from outside are written by internal/ingest/turnbench and
// internal/ingest/ami through Stage, which builds a corpus beside its
// destination and moves it into place when complete.
package corpus
