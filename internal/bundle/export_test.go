package bundle

// What the external tests (package bundle_test, which may import
// bundlefixture) use of this package's internals and its internal tests.
var (
	BreakdownTable = breakdownTable
	AnatomyTable   = anatomyTable
)
