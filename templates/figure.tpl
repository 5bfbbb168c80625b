{{%AUTOESCAPE context="HTML"}}
<figure class="chart">
<a href="img/{{NAME}}.svg"><img src="img/{{NAME}}.png" srcset="img/{{NAME}}@2x.png 2x" width="{{WIDTH}}" height="{{HEIGHT}}" alt="{{ALT}}"></a>
<figcaption>{{CAPTION}}
<span class="downloads">Chart as <a href="img/{{NAME}}.svg" type="image/svg+xml">SVG</a>, <a href="img/{{NAME}}.png" type="image/png">PNG</a>, <a href="img/{{NAME}}@2x.png" type="image/png">PNG at 2×</a>.</span></figcaption>
</figure>
