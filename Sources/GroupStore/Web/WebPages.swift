import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird

/// The store's web pages, rendered on the server from templates (`PageTemplates`) with no scripts
/// and no requests elsewhere: the sign-in form, the page where a person enters a pack's code, and a
/// group's page, with the store's one stylesheet. A signed-in
/// browser holds its session token in an HttpOnly, SameSite=Strict cookie; forms also check that
/// a browser's Origin, when it sends one, is this store.
struct WebPages {
    let services: Services
    static let cookie = "handoff_session"

    /// The pages, feature by feature: the account's (home, signing in and out), packs', groups'.
    /// Each path's methods keep their order, which a 405's `Allow` lists.
    /// Every page goes through `PageRouter`, which checks the origin of forms and the session.
    func register(_ router: RouteRecorder) {
        let pages = PageRouter(router: router, pages: self)
        registerAccountPages(pages)
        registerDevicePages(pages)
        registerGroupPages(pages)
        registerRunPages(pages)
        registerAccountFormPages(pages)
        registerGroupFormPages(pages)
        registerFriendPages(pages)
        registerNotificationPages(pages)
        registerMailPages(pages)
        registerReminderPages(pages)
        registerLivePages(pages)
        registerSocialPages(pages)
        registerPeoplePages(pages)
        registerEntryPage(pages)
        registerTrainingPages(pages)
        registerStepsPages(pages)
        registerGoalPages(pages)
        registerComparePage(pages)
        registerAtomFeed(pages)
        registerProfileForm(pages)
        registerReportPages(pages)
        registerPhotoPages(pages)
        registerTogetherPages(pages)
        registerSharePages(pages)
        for (path, file) in [("/static/style.css", StaticFile.stylesheet), ("/static/app.js", StaticFile.script)] {
            pages.anyone(.get, path) { _, _ in
                Response(
                    status: .ok,
                    headers: [
                        .contentType: file.contentType,
                        // The address names the version (`SitePath.stylesheet`), so a year is safe.
                        .cacheControl: "public, max-age=31536000, immutable",
                        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
                    ], body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
            }
        }
    }
}
