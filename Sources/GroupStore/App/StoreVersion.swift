/// The group store's version, as `/v1/health` and `handoff-store --version` report it.
public enum StoreVersion {
    public static let current = "0.1.0"
}
