import type { Niche } from './reference-data.js';

/**
 * Each niche's hashtags, most used first: the demo picks them with a Zipf-like
 * draw, so the first few are on many posts and the tail on few (what search by
 * hashtag meets in real data).
 */
export const NICHE_HASHTAGS: Readonly<Record<Niche, readonly string[]>> = {
  beauty: ['makeup', 'skincare', 'beauty', 'grwm', 'makeuptutorial', 'glowup', 'skincareroutine', 'mua', 'lipstick', 'nails',
    'beautytips', 'foundation', 'eyeliner', 'contour', 'glassskin', 'serum', 'kbeauty', 'crueltyfree', 'vegannails', 'brows',
    'lashes', 'highlighter', 'spf', 'retinol', 'nailart', 'drugstoremakeup', 'cleanbeauty', 'hairtok', 'curlyhair', 'blush',
    'dewyskin', 'selfcare', 'nomakeup', 'swatches', 'perfume', 'bridalmakeup', 'acnejourney', 'hyaluronic'],
  fashion: ['ootd', 'fashion', 'style', 'outfitinspo', 'streetstyle', 'thrifted', 'vintage', 'haul', 'lookbook', 'capsulewardrobe',
    'sneakers', 'whatiwore', 'fashionweek', 'minimalstyle', 'denim', 'slowfashion', 'sustainablefashion', 'accessories', 'tryon',
    'menswear', 'plussize', 'y2k', 'oldmoney', 'quietluxury', 'handbags', 'jewelry', 'tailoring', 'knitwear', 'modestfashion',
    'stylingtips', 'secondhand', 'summerlook', 'winteroutfit', 'fitcheck', 'designer', 'upcycling'],
  fitness: ['fitness', 'gym', 'workout', 'hiit', 'gymtok', 'legday', 'mealprep', 'fitfam', 'strengthtraining', 'homeworkout',
    'cardio', 'gains', 'powerlifting', 'crossfit', 'running', 'abs', 'glutes', 'pushday', 'pullday', 'protein', 'calisthenics',
    'mobility', 'yoga', 'pilates', 'bodybuilding', 'cutting', 'bulking', 'marathontraining', 'kettlebell', 'deadlift', 'squat',
    'stretching', 'fitover40', 'personaltrainer', 'transformation', 'restday', 'zone2', 'rowing', 'bootcamp', 'spinclass'],
  food: ['food', 'foodie', 'recipe', 'easyrecipes', 'homecooking', 'baking', 'vegan', 'dinnerideas', 'foodtok', 'mealprep',
    'streetfood', 'pasta', 'dessert', 'breakfast', 'airfryer', 'glutenfree', 'plantbased', 'sourdough', 'brunch', 'comfortfood',
    'healthyeating', 'ramen', 'tacos', 'bbq', 'pizza', 'foodphotography', 'onepotmeal', 'lunchbox', 'cakedecorating', 'cocktails',
    'coffee', 'ferment', 'spicy', 'restaurantreview', 'grandmasrecipe', 'budgetmeals', 'snacks', 'curry'],
  travel: ['travel', 'wanderlust', 'travelgram', 'traveltok', 'roadtrip', 'backpacking', 'vanlife', 'beach', 'hiking', 'solotravel',
    'traveltips', 'bucketlist', 'islandlife', 'citybreak', 'europetravel', 'asiatravel', 'digitalnomad', 'camping', 'mountains',
    'luxurytravel', 'budgettravel', 'travelcouple', 'hiddengems', 'sunset', 'airbnb', 'hotelreview', 'trainjourney', 'scubadiving',
    'safari', 'nationalpark', 'weekendgetaway', 'passport', 'cruise', 'packingtips', 'slowtravel', 'expatlife'],
  gaming: ['gaming', 'gamer', 'twitchstreamer', 'fortnite', 'minecraft', 'gameplay', 'pcgaming', 'esports', 'valorant', 'cod',
    'speedrun', 'retrogaming', 'nintendo', 'playstation', 'xbox', 'indiegames', 'rpg', 'fps', 'letsplay', 'gamingsetup',
    'streamer', 'cozygames', 'roblox', 'leagueoflegends', 'apexlegends', 'gamingclips', 'mobilegaming', 'speedrunning', 'gamedev',
    'boardgames', 'dnd', 'gamingcommunity', 'newrelease', 'achievementunlocked', 'handheld'],
  tech: ['tech', 'technology', 'gadgets', 'iphone', 'android', 'unboxing', 'techreview', 'ai', 'coding', 'programming',
    'setup', 'desksetup', 'smartphone', 'laptop', 'pcbuild', 'software', 'startup', 'cybersecurity', 'javascript', 'python',
    'smarthome', 'wearables', 'techtok', 'linux', 'opensource', 'productivity', 'apps', 'machinelearning', 'cloud', 'webdev',
    'mechanicalkeyboard', 'audiophile', 'drones', 'homelab', 'robotics', 'ev'],
  finance: ['finance', 'investing', 'personalfinance', 'money', 'stocks', 'budgeting', 'financialfreedom', 'crypto', 'savings',
    'passiveincome', 'realestate', 'fire', 'dividends', 'etf', 'retirement', 'debtfree', 'sidehustle', 'moneytok', 'taxes',
    'wealth', 'creditscore', 'frugal', 'indexfunds', 'bitcoin', 'financialliteracy', 'budgettips', 'compoundinterest', 'mortgage',
    'emergencyfund', 'trading', 'personalloans', 'insurance', 'networth', 'moneytips'],
  parenting: ['parenting', 'momlife', 'motherhood', 'dadlife', 'toddler', 'newborn', 'pregnancy', 'familytime', 'momtok',
    'breastfeeding', 'babyfood', 'kidsactivities', 'gentleparenting', 'homeschool', 'sleeptraining', 'twins', 'momhacks',
    'postpartum', 'boymom', 'girlmom', 'familyvlog', 'schoolrun', 'kidsfashion', 'playtime', 'montessori', 'bedtime',
    'workingmom', 'stayathomemom', 'babyshower', 'siblings', 'teenagers', 'lunchboxideas', 'firsttimemom'],
  music: ['music', 'musician', 'newmusic', 'singer', 'guitar', 'cover', 'producer', 'hiphop', 'piano', 'songwriter', 'rap',
    'livemusic', 'indie', 'pop', 'dj', 'beats', 'vinyl', 'drums', 'bass', 'studio', 'acoustic', 'edm', 'jazz', 'rnb', 'kpop',
    'musictok', 'singing', 'choir', 'orchestra', 'concert', 'festival', 'lofi', 'bedroompop', 'metal', 'reggaeton'],
  comedy: ['comedy', 'funny', 'memes', 'lol', 'skit', 'standup', 'humor', 'prank', 'relatable', 'funnyvideos', 'sketch',
    'comedytok', 'improv', 'parody', 'satire', 'jokes', 'roast', 'dadjokes', 'impressions', 'officehumor', 'momhumor',
    'petsoftiktok', 'darkhumor', 'pov', 'storytime', 'bloopers', 'openmic', 'sitcom', 'wholesome', 'cringe'],
  education: ['education', 'learning', 'studytok', 'science', 'history', 'studytips', 'teacher', 'math', 'languagelearning',
    'didyouknow', 'physics', 'biology', 'chemistry', 'edutok', 'booktok', 'reading', 'studywithme', 'exam', 'university',
    'onlinelearning', 'geography', 'astronomy', 'philosophy', 'psychology', 'spanishlessons', 'englishtips', 'teachersoftiktok',
    'explained', 'facts', 'notetaking', 'college', 'scholarship'],
  sports: ['sports', 'football', 'soccer', 'basketball', 'nba', 'nfl', 'tennis', 'golf', 'running', 'cycling', 'f1',
    'baseball', 'boxing', 'mma', 'ufc', 'skateboarding', 'surfing', 'volleyball', 'cricket', 'rugby', 'hockey', 'swimming',
    'climbing', 'skiing', 'snowboarding', 'matchday', 'highlights', 'athlete', 'training', 'triathlon', 'fantasyfootball',
    'worldcup', 'olympics', 'padel'],
  lifestyle: ['lifestyle', 'dayinmylife', 'vlog', 'morningroutine', 'selfcare', 'aesthetic', 'thatgirl', 'productivity',
    'minimalism', 'wellness', 'journaling', 'citylife', 'weekendvibes', 'routine', 'motivation', 'lifehacks', 'slowliving',
    'selflove', 'goals', 'nightroutine', 'cleantok', 'organization', 'romanticizeyourlife', 'resetday', 'mindset', 'inspo',
    'happiness', 'friends', 'coffeetime', 'sundayreset', 'apartmentlife'],
  pets: ['pets', 'dogsofinstagram', 'catsofinstagram', 'dog', 'cat', 'puppy', 'kitten', 'doglover', 'petsoftiktok', 'rescuedog',
    'adoptdontshop', 'dogtraining', 'goldenretriever', 'frenchie', 'corgi', 'husky', 'catlife', 'petcare', 'birds', 'bunny',
    'hamster', 'reptiles', 'aquarium', 'horses', 'doggrooming', 'catmom', 'dogmom', 'seniordog', 'fosterkittens', 'petfood',
    'pawsome'],
  automotive: ['cars', 'carsofinstagram', 'automotive', 'carlifestyle', 'jdm', 'supercars', 'carreview', 'ev', 'tesla',
    'classiccars', 'motorsport', 'detailing', 'carmods', 'trackday', 'offroad', 'motorcycles', 'bmw', 'porsche', 'mustang',
    'drifting', 'restoration', 'turbo', 'carspotting', 'roadtrip', 'cartok', 'carwash', 'projectcar', 'electriccars',
    'overlanding', 'racing'],
  home: ['home', 'homedecor', 'interiordesign', 'diy', 'homeinspo', 'cleaning', 'organization', 'gardening', 'renovation',
    'homeimprovement', 'cozyhome', 'plants', 'kitchendesign', 'smallspaces', 'apartmenttherapy', 'furniture', 'houseplants',
    'beforeandafter', 'scandinavian', 'boho', 'cleantok', 'homemakeover', 'bathroomreno', 'woodworking', 'paintproject',
    'thriftflip', 'declutter', 'fixerupper', 'backyard', 'homeoffice', 'tinyhouse'],
  health: ['health', 'wellness', 'mentalhealth', 'nutrition', 'healthyliving', 'selfcare', 'mindfulness', 'meditation',
    'guthealth', 'sleep', 'holistichealth', 'hormones', 'anxiety', 'therapy', 'plantbased', 'hydration', 'dietitian',
    'pcos', 'chronicillness', 'breathwork', 'longevity', 'supplements', 'stressrelief', 'healthtips', 'womenshealth',
    'menopause', 'physio', 'intermittentfasting', 'walking', 'burnout'],
  art: ['art', 'artist', 'drawing', 'painting', 'illustration', 'sketch', 'digitalart', 'arttok', 'watercolor', 'procreate',
    'sketchbook', 'oilpainting', 'portrait', 'artprocess', 'ceramics', 'pottery', 'photography', 'design', 'calligraphy',
    'animation', 'tattoo', 'streetart', 'mural', 'crochet', 'embroidery', 'comics', 'fanart', 'abstractart', 'printmaking',
    'artistsoninstagram', 'commissionsopen', 'acrylicpainting'],
  business: ['business', 'entrepreneur', 'smallbusiness', 'marketing', 'startup', 'leadership', 'success', 'motivation',
    'branding', 'sales', 'ecommerce', 'sidehustle', 'productivity', 'linkedin', 'careertips', 'remotework', 'founder',
    'socialmediamarketing', 'networking', 'personalbrand', 'womeninbusiness', 'growthmindset', 'b2b', 'saas', 'hustle',
    'ceo', 'freelance', 'investing', 'businesstips', 'contentcreator', 'smallbusinessowner'],
};

/** Tags any niche uses now and then (besides `#ad`, which marks sponsored posts). */
export const CROSS_NICHE_HASHTAGS = ['fyp', 'foryou', 'viral', 'explore', 'trending', 'reels', 'instagood', 'love', 'new'] as const;

/** Fictional brands that sponsor each niche (handles as stored: '@' and lower case). */
export const NICHE_BRANDS: Readonly<Record<Niche, readonly string[]>> = {
  beauty: ['@lumacosmetics', '@veloraskin', '@petalandpine', '@glossworks', '@aurabeauty', '@dewdropco', '@nordiclash', '@rougeatelier', '@skinsense', '@bloomlab'],
  fashion: ['@threadline', '@northstitch', '@velvetfox', '@urbanloom', '@coastaldenim', '@maisonarden', '@kinwear', '@oakandember', '@stridesneakers', '@lunalane'],
  fitness: ['@ironpeak', '@pulsefuel', '@liftlab', '@corestrong', '@trailforge', '@flexform', '@gritgear', '@wheywell', '@repsandrest', '@kinetica', '@stridebar'],
  food: ['@harvestbowl', '@spicecraft', '@ovenly', '@greengrove', '@mightymeals', '@crumbco', '@saucesmith', '@oatandhoney', '@brewhaven', '@chillipeak'],
  travel: ['@wanderbag', '@skyhopair', '@staysuite', '@nomadpack', '@tidewaytours', '@globetrail', '@roamcard', '@islandhop', '@voyagely'],
  gaming: ['@pixelforge', '@nexgear', '@clutchcontrol', '@raidfuel', '@voidheadsets', '@arcadia', '@lagfree', '@questcrate', '@boltchair'],
  tech: ['@circuitly', '@nimbusphone', '@bytecraft', '@voltnest', '@codecamp', '@lumenlaptops', '@echobuds', '@gridcloud', '@snaphub', '@quantix'],
  finance: ['@coinharbor', '@stackwise', '@ledgerly', '@nestegg', '@brightbank', '@fundfox', '@taxtide', '@vaultly'],
  parenting: ['@tinysteps', '@cradleco', '@nestlings', '@playhaven', '@littlebloom', '@snugglebug', '@babybrite', '@kiddokitchen'],
  music: ['@soundforge', '@chordify', '@beatbox', '@riffgear', '@studiodawn', '@vinylvault', '@tunecast', '@echostrings'],
  comedy: ['@snackattack', '@giggleapp', '@punchlinetix', '@laughtrack', '@memefuel', '@streamly', '@popcornco', '@sillysocks'],
  education: ['@learnly', '@brainboost', '@studyowl', '@mentorhub', '@lingualeap', '@quizzly', '@notewise', '@campusbox'],
  sports: ['@fieldforce', '@swiftkicks', '@courtking', '@hydrapeak', '@goalpost', '@sprintsport', '@teamtrack', '@arenafit', '@padelpro'],
  lifestyle: ['@dailybloom', '@cozycorner', '@brightday', '@calmcup', '@hearthhome', '@simplysoft', '@mornings', '@goldenhourco', '@wildroot'],
  pets: ['@pawsandco', '@happytails', '@kibblekitchen', '@furfriends', '@barkbox', '@whiskerwell', '@petpal', '@snoutsnacks'],
  automotive: ['@torquetech', '@gearhead', '@shineauto', '@voltdrive', '@roadrunnertires', '@pitlane', '@chromeworks', '@motomax'],
  home: ['@nestandnook', '@hearthline', '@greenthumb', '@cleanslate', '@oakhaus', '@lumenlamps', '@tidyspace', '@potterypath', '@woodgrain'],
  health: ['@vitalroot', '@calmmind', '@gutgood', '@sleepwell', '@purehydrate', '@zenbreath', '@wellspring', '@nourishco'],
  art: ['@brushbloom', '@inkwell', '@canvascraft', '@pigmentpro', '@sketchy', '@clayhouse', '@colorfield', '@artboxco'],
  business: ['@bizboost', '@leadflow', '@ledgerpro', '@pitchdeck', '@growthlab', '@shopstack', '@teamnest', '@founderfund'],
};

/**
 * Everyday words of captions by language; a creator writes in its own and
 * languages without a list fall back to English. Accented words on purpose:
 * caption words and keyword search are Unicode.
 */
export const CAPTION_WORDS: Readonly<Record<string, readonly string[]>> = {
  en: ['today', 'new', 'my', 'favourite', 'love', 'this', 'so', 'happy', 'finally', 'trying', 'weekend', 'morning', 'best',
    'ever', 'quick', 'tips', 'for', 'you', 'what', 'do', 'think', 'link', 'in', 'bio', 'routine', 'honest', 'review', 'week',
    'challenge', 'day', 'first', 'time', 'little', 'update', 'excited', 'share', 'results', 'before', 'after', 'easy', 'guide',
    'obsessed', 'with', 'summer', 'winter', 'vibes', 'grateful', 'amazing', 'together', 'behind', 'scenes'],
  es: ['hoy', 'nuevo', 'mi', 'favorito', 'amo', 'esto', 'muy', 'feliz', 'por', 'fin', 'probando', 'fin', 'semana', 'mañana',
    'mejor', 'consejos', 'para', 'ti', 'qué', 'piensas', 'rutina', 'reseña', 'sincera', 'reto', 'día', 'primera', 'vez',
    'pequeño', 'cambio', 'emocionada', 'compartir', 'resultados', 'antes', 'después', 'fácil', 'guía', 'verano', 'invierno',
    'gracias', 'increíble', 'juntos', 'corazón', 'niño', 'año', 'sueño'],
  pt: ['hoje', 'novo', 'meu', 'favorito', 'amo', 'isso', 'muito', 'feliz', 'finalmente', 'testando', 'fim', 'de', 'semana',
    'manhã', 'melhor', 'dicas', 'para', 'você', 'que', 'acham', 'rotina', 'resenha', 'sincera', 'desafio', 'dia', 'primeira',
    'vez', 'atualização', 'animada', 'compartilhar', 'resultados', 'antes', 'depois', 'fácil', 'guia', 'verão', 'inverno',
    'obrigado', 'incrível', 'juntos', 'coração', 'ação', 'irmão', 'saudade'],
  de: ['heute', 'neu', 'mein', 'liebling', 'liebe', 'das', 'so', 'glücklich', 'endlich', 'probiere', 'wochenende', 'morgen',
    'beste', 'schnelle', 'tipps', 'für', 'euch', 'was', 'denkt', 'ihr', 'routine', 'ehrliche', 'bewertung', 'woche',
    'herausforderung', 'tag', 'erste', 'mal', 'kleines', 'update', 'aufgeregt', 'teilen', 'ergebnisse', 'vorher', 'nachher',
    'einfach', 'anleitung', 'sommer', 'winter', 'dankbar', 'großartig', 'zusammen', 'straße', 'müde', 'schön', 'grüße'],
  fr: ['aujourdhui', 'nouveau', 'mon', 'préféré', 'adore', 'ça', 'très', 'heureuse', 'enfin', 'essai', 'weekend', 'matin',
    'meilleur', 'astuces', 'pour', 'vous', 'quoi', 'pensez', 'routine', 'avis', 'honnête', 'semaine', 'défi', 'jour', 'première',
    'fois', 'petite', 'mise', 'à', 'jour', 'hâte', 'partager', 'résultats', 'avant', 'après', 'facile', 'guide', 'été', 'hiver',
    'merci', 'génial', 'ensemble', 'cœur', 'où', 'déjà', 'vraiment'],
  it: ['oggi', 'nuovo', 'mio', 'preferito', 'amo', 'questo', 'così', 'felice', 'finalmente', 'provando', 'weekend', 'mattina',
    'migliore', 'consigli', 'per', 'voi', 'cosa', 'pensate', 'routine', 'recensione', 'sincera', 'settimana', 'sfida', 'giorno',
    'prima', 'volta', 'piccolo', 'aggiornamento', 'emozionata', 'condividere', 'risultati', 'prima', 'dopo', 'facile', 'guida',
    'estate', 'inverno', 'grazie', 'fantastico', 'insieme', 'cuore', 'perché', 'città', 'più'],
};

/** The languages with caption words of their own. */
export const CAPTION_LANGUAGES = Object.keys(CAPTION_WORDS);

/** What some captions end with: emoji, flags, a skin-tone modifier, a zero-width joiner sequence, odd punctuation. */
export const CAPTION_ENDINGS = [
  '', '', '', '', ' ✨', ' 🔥🔥', ' 💪🏽', ' ❤️', ' 🙌', ' 😂😂', ' 👩‍🍳', ' 🇧🇷', ' …', ' — !!', ' (¡sí!)', ' 🌍',
] as const;

/** Captions with no word at all (emoji only). */
export const EMOJI_CAPTIONS = ['🔥', '✨✨✨', '😍', '🙏🏼', '💯'] as const;
