// SPDX-License-Identifier: Apache-2.0

/// The commit this source tree was taken from, filled in by git, never by the build: `git archive`
/// substitutes the placeholder (`export-subst` in .gitattributes), so a release's source tarball
/// carries its commit, and scripts/source-tree writes it into the copy of a git checkout that the
/// release scripts build (with `+modified` when the checkout differs from that commit). A plain
/// `swift build` of a checkout keeps the placeholder: `--version` says "development build".
enum SourceCommit {
    static let stamp = "$Format:%H$"
}
