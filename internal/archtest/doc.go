// Package archtest holds the test that keeps mpbench's packages in their
// layers (docs/architecture.md): a package may import only packages of a
// lower layer. It has no code of its own.
package archtest
