package keys

// The keys below a prefix: a stored corpus's or scenario set's manifest
// and its members' files, a trial's or a seat's recording. The names of
// the files are their formats' (corpus.ManifestName, agent.RecordingName,
// seated.OutputName); the layout, a name below its prefix and a member's
// files in a folder of their own, is written here only.

// File is the key of the file name below prefix.
func File(prefix, name string) string { return prefix + "/" + name }

// Member is the folder of one member (a corpus's conversation, a
// scenario set's scenario) below prefix.
func Member(prefix, id string) string { return File(prefix, id) }

// MemberFile is the key of member id's file name below prefix.
func MemberFile(prefix, id, name string) string { return File(Member(prefix, id), name) }

// Entries is the folder of a generated corpus's manifest entries below its
// prefix (Entry).
func Entries(prefix string) string { return File(prefix, "entries/") }
