from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.urls import include, path
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import csrf_exempt
from django.views.i18n import set_language
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from clubs import api as clubs_api
from config import views
from games import api as games_api
from ratings import api as ratings_api
from tournaments import api as tournaments_api

# Each app adds its viewsets to this router from its own api module.
api_router = DefaultRouter()
clubs_api.register(api_router)
games_api.register(api_router)
ratings_api.register(api_router)
tournaments_api.register(api_router)

admin.site.site_header = _("Zary administration")
admin.site.site_title = _("Zary")
admin.site.index_title = _("Tournaments, clubs and ratings")

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    # The language chooser is on every page without a CSRF token, so that a public
    # page is the same for every anonymous visitor and can be kept whole
    # (base.pagecache).  A forged choice only changes the visitor's language, and
    # set_language redirects only to this site.
    path("i18n/setlang/", csrf_exempt(set_language), name="set_language"),
    path("api/", include(api_router.urls)),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include("clubs.urls")),
    path("", include("games.urls")),
    path("", include("tournaments.urls")),
    path("", include("ratings.urls")),
]

if settings.DEBUG:
    urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
