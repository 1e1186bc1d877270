/*
 * omniira demo: Evennia's webclient font plugin (plugins/font.js) without web fonts.
 *
 * Evennia's plugin adds a stylesheet link per font, most of them on fonts.googleapis.com: seven
 * requests to an outside host on every page load, all failing offline. Here every choice is a
 * local font stack: DejaVu Sans Mono is served by the game itself (static/webclient/fonts), the
 * others are used when installed on the player's machine and fall back to monospace otherwise.
 */
let font_plugin = (function () {

    const font_stacks = {
        'DejaVu Sans Mono': "'DejaVu Sans Mono', monospace",
        'Consolas': "Consolas, 'DejaVu Sans Mono', monospace",
        'Courier New': "'Courier New', Courier, monospace",
        'Liberation Mono': "'Liberation Mono', 'DejaVu Sans Mono', monospace",
        'Menlo': "Menlo, Monaco, 'DejaVu Sans Mono', monospace",
        'Monospace': "monospace",
        'Noto Sans Mono': "'Noto Sans Mono', 'DejaVu Sans Mono', monospace",
        'Ubuntu Mono': "'Ubuntu Mono', 'DejaVu Sans Mono', monospace",
    };
    const local_css = '/static/webclient/fonts/DejaVuSansMono.css';

    var stackFor = function (family) {
        return font_stacks[family] || font_stacks['DejaVu Sans Mono'];
    }

    var getActiveFontFamily = function () {
        var family = localStorage.getItem("evenniaFontFamily");
        return (family != null && family in font_stacks) ? family : "DejaVu Sans Mono";
    }

    var getActiveFontSize = function () {
        var size = localStorage.getItem("evenniaFontSize");
        return size != null ? size : "0.9";
    }

    var setStartingFont = function () {
        $(document.body).css("font-family", stackFor(getActiveFontFamily()));
        $(document.body).css("font-size", getActiveFontSize() + "em");
    }

    var onFontFamily = function (evnt) {
        var family = $(evnt.target).val();
        $(document.body).css("font-family", stackFor(family));
        localStorage.setItem("evenniaFontFamily", family);
    }

    var onFontSize = function (evnt) {
        var size = $(evnt.target).val();
        $(document.body).css("font-size", size + "em");
        localStorage.setItem("evenniaFontSize", size);
    }

    var onOptionsUI = function (parentdiv) {
        var fontselect = $("<select>");
        var sizeselect = $("<select>");

        for (const font of Object.keys(font_stacks)) {
            fontselect.append($("<option value='" + font + "'>" + font + "</option>"));
        }
        for (var x = 4; x < 21; x++) {
            var val = (x / 10.0);
            sizeselect.append($("<option value='" + val + "'>" + x + "</option>"));
        }
        fontselect.val(getActiveFontFamily());
        sizeselect.val(getActiveFontSize());
        fontselect.on("change", onFontFamily);
        sizeselect.on("change", onFontSize);

        parentdiv.append("<div style='font-weight: bold'>Font Selection:</div>");
        parentdiv.append(fontselect);
        parentdiv.append(sizeselect);
    }

    // Only the game's own font stylesheet is linked; nothing is fetched from another host.
    var init = function () {
        $(document.head).append($("<link href='" + local_css + "' rel='stylesheet'>"));
        setStartingFont();
    }

    return {
        init: init,
        onOptionsUI: onOptionsUI,
    }
})();
window.plugin_handler.add("font", font_plugin);
