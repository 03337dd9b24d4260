/// The version of the pack's software, as `handoff --version` and `handoffd` report it.
public enum HandoffVersion {
    public static let current = "0.1.0"
}
